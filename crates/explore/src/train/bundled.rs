//! The bundled real datasets: scikit-learn's copies of four UCI datasets, written by
//! `scripts/datasets.py` into `assets/datasets/NAME.safetensors` (a `x` tensor of rows × features,
//! a `y` tensor of class indices, the feature and class names in `__metadata__`; licences in
//! `assets/datasets/LICENSE.md`). The page fetches a file when its dataset is chosen (the first
//! load carries none of them); the command line has them built in. Either way the bytes are
//! decoded here into the trainer's [`Table`].

use qscope_nn::DatasetKind;
use qscope_nn::table::Table;
use qscope_tensors::Location;
use qscope_tensors::json::Json;
use qscope_tensors::safetensors::parse;

/// The file of a bundled dataset, from the site's root (`datasets/digits.safetensors`); None
/// for the others.
pub fn path(kind: DatasetKind) -> Option<String> {
    DatasetKind::BUNDLED.contains(&kind).then(|| format!("datasets/{}.safetensors", kind.name()))
}

/// A metadata entry that is a JSON list of strings (`["0", "1"]`), as the generator writes it.
fn names(meta: &[(String, String)], key: &str) -> Result<Vec<String>, String> {
    let text = meta.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).ok_or(format!("no '{key}' metadata"))?;
    match Json::parse(text).map_err(|e| format!("'{key}': {e}"))? {
        Json::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Json::String(s) => Ok(s),
                other => Err(format!("'{key}': a {} in a list of names", other.kind())),
            })
            .collect(),
        other => Err(format!("'{key}' is a {}, not a list", other.kind())),
    }
}

/// The table a bundled dataset's bytes hold, named `name`. Read with the non-generic pieces of
/// the safetensors reader (its header parser and the dtype conversion), which the page already
/// has: the async readers over a new source would be a second copy of them in the page.
pub fn decode(name: &str, bytes: &[u8]) -> Result<Table, String> {
    let fail = |e: String| format!("{name}: {e}");
    let n = bytes
        .get(..8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .ok_or_else(|| fail("truncated".into()))?;
    let start = usize::try_from(n).ok().and_then(|n| n.checked_add(8)).filter(|&s| s <= bytes.len());
    let start = start.ok_or_else(|| fail("the header is longer than the file".into()))?;
    let listing = parse(&bytes[8..start], (bytes.len() - start) as u64, start as u64).map_err(fail)?;
    let tensor = |key: &str| -> Result<Vec<f32>, String> {
        let info = listing.find(key).ok_or_else(|| fail(format!("no '{key}' tensor")))?;
        let Location::Raw { offset } = info.location else { return Err(fail(format!("'{key}' is compressed"))) };
        let (from, len) = (offset as usize, info.bytes() as usize);
        let data = bytes.get(from..from + len).ok_or_else(|| fail(format!("'{key}' runs past the end")))?;
        Ok(qscope_tensors::decode(info, data).values)
    };
    let (x, y) = (tensor("x")?, tensor("y")?);
    let features = names(&listing.metadata, "features").map_err(fail)?;
    let classes = names(&listing.metadata, "classes").map_err(fail)?;
    let y = y.iter().map(|&c| if (0.0..=255.0).contains(&c) { c as u8 } else { u8::MAX }).collect();
    Table::new(name, features, classes, x, y)
}

/// The command line's built-in copy of a bundled dataset's file.
#[cfg(not(target_arch = "wasm32"))]
pub fn bytes(kind: DatasetKind) -> Option<&'static [u8]> {
    let root = |name| -> &'static [u8] {
        match name {
            "digits" => include_bytes!("../../../../assets/datasets/digits.safetensors"),
            "iris" => include_bytes!("../../../../assets/datasets/iris.safetensors"),
            "wine" => include_bytes!("../../../../assets/datasets/wine.safetensors"),
            _ => include_bytes!("../../../../assets/datasets/breast_cancer.safetensors"),
        }
    };
    DatasetKind::BUNDLED.contains(&kind).then(|| root(kind.name()))
}

/// A bundled dataset, decoded from the built-in copy (the command line and the tests).
#[cfg(not(target_arch = "wasm32"))]
pub fn load(kind: DatasetKind) -> Result<Table, String> {
    let bytes = bytes(kind).ok_or_else(|| format!("{} is not a bundled dataset", kind.name()))?;
    decode(kind.name(), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_dataset_decodes_with_its_shape_and_classes() {
        let want = [
            (DatasetKind::Digits, 1797, 64, 10),
            (DatasetKind::Iris, 150, 4, 3),
            (DatasetKind::Wine, 178, 13, 3),
            (DatasetKind::BreastCancer, 569, 30, 2),
        ];
        for (kind, rows, dims, classes) in want {
            let t = load(kind).unwrap();
            assert_eq!((t.rows(), t.dims(), t.classes.len()), (rows, dims, classes), "{}", kind.name());
            assert_eq!(kind.classes(), Some(classes));
        }
        let digits = load(DatasetKind::Digits).unwrap();
        assert_eq!(digits.classes[3], "3");
        assert_eq!(digits.features[9], "pixel_1_1");
        assert!(digits.x.iter().all(|&v| (0.0..=16.0).contains(&v) && v.fract() == 0.0));
        assert_eq!(load(DatasetKind::Iris).unwrap().classes, ["setosa", "versicolor", "virginica"]);
    }

    #[test]
    fn a_damaged_file_is_named_not_a_panic() {
        let mut bytes = bytes(DatasetKind::Iris).unwrap().to_vec();
        bytes.truncate(100);
        assert!(decode("iris", &bytes).unwrap_err().starts_with("iris: "));
        assert!(names(&[("classes".into(), "[\"a\", \"b\"]".into())], "classes").unwrap() == ["a", "b"]);
        assert!(names(&[("classes".into(), "[\"a".into())], "classes").is_err());
        assert!(names(&[], "classes").unwrap_err().contains("no 'classes'"));
    }

    #[test]
    fn the_page_fetches_each_bundled_file_by_its_path() {
        assert_eq!(path(DatasetKind::Digits).as_deref(), Some("datasets/digits.safetensors"));
        assert_eq!(path(DatasetKind::Circle), None);
        assert_eq!(path(DatasetKind::Csv), None);
    }
}

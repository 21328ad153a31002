//! safetensors: an 8-byte little-endian header length N, N bytes of JSON, the data. The header
//! maps each tensor's name to `{"dtype", "shape", "data_offsets": [begin, end]}` (offsets into the
//! data) and may hold `__metadata__`, a map of strings. The checks are the reference's
//! (`safetensors::tensor::Metadata::validate`): N at most 100,000,000 bytes and within the file,
//! UTF-8 JSON starting with `{`, every tensor's bytes = shape × dtype size, the tensors sorted by
//! offset tiling the data with no gap or overlap, and the last ending at the end of the file.

use crate::json::Json;
use crate::{Dtype, Endian, Format, Info, Listing, Location, Source, elements};

/// The reference's header size limit.
pub const MAX_HEADER: u64 = 100_000_000;

/// Dtypes of the format that qscope lists but does not read, with their bits per element.
const UNREAD: [(&str, u64); 4] = [("F4", 4), ("F6_E2M3", 6), ("F6_E3M2", 6), ("C64", 64)];

/// Reads the header of a safetensors file.
pub async fn list<S: Source + ?Sized>(src: &S) -> Result<Listing, String> {
    let len = src.len();
    if len < 8 {
        return Err(format!("safetensors: the file has {len} bytes, fewer than the 8 of the header length"));
    }
    let n = u64::from_le_bytes(src.read(0, 8).await?.try_into().map_err(|_| "short read".to_string())?);
    if n > MAX_HEADER {
        return Err(format!("safetensors: the header says it is {n} bytes, above the limit of {MAX_HEADER}"));
    }
    if 8 + n > len {
        return Err(format!(
            "safetensors: the header says it is {n} bytes but the file has only {} after the length (truncated?)",
            len - 8
        ));
    }
    let header = src.read(8, n as usize).await?;
    parse(&header, len - 8 - n, 8 + n)
}

/// Parses a header of the file's `data_len` data bytes, which start at `data_start`.
pub fn parse(header: &[u8], data_len: u64, data_start: u64) -> Result<Listing, String> {
    let text = std::str::from_utf8(header)
        .map_err(|e| format!("safetensors: the header is not UTF-8 (byte {})", e.valid_up_to()))?;
    if !text.starts_with('{') {
        return Err("safetensors: the header does not start with '{'".into());
    }
    let Json::Object(fields) = Json::parse(text).map_err(|e| format!("safetensors header: {e}"))? else {
        return Err("safetensors: the header is not a JSON object".into());
    };
    let mut listing =
        Listing { format: Format::Safetensors, tensors: Vec::new(), skipped: Vec::new(), metadata: Vec::new() };
    let mut spans: Vec<(u64, u64, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (name, value) in fields {
        if !seen.insert(name.clone()) {
            return Err(format!("safetensors: the header names {name:?} twice"));
        }
        if name == "__metadata__" {
            listing.metadata = metadata(value)?;
            continue;
        }
        let bad = |what: String| format!("safetensors: tensor {name:?}: {what}");
        let Json::Object(entry) = value else { return Err(bad(format!("is {}, not an object", value.kind()))) };
        let field = |key: &str| entry.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        let dtype = match field("dtype") {
            Some(Json::String(s)) => s.clone(),
            _ => return Err(bad("no \"dtype\" string".into())),
        };
        let shape: Vec<u64> = match field("shape") {
            Some(Json::Array(dims)) => dims
                .iter()
                .map(Json::as_u64)
                .collect::<Option<_>>()
                .ok_or_else(|| bad("\"shape\" holds something other than whole numbers".into()))?,
            _ => return Err(bad("no \"shape\" array".into())),
        };
        let (begin, end) = match field("data_offsets") {
            Some(Json::Array(o)) if o.len() == 2 => match (o[0].as_u64(), o[1].as_u64()) {
                (Some(b), Some(e)) => (b, e),
                _ => return Err(bad("\"data_offsets\" are not whole numbers".into())),
            },
            _ => return Err(bad("no \"data_offsets\" pair".into())),
        };
        let count = shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .ok_or_else(|| bad("its shape's element count overflows".into()))?;
        let (known, bits) = match Dtype::from_safetensors(&dtype) {
            Some(d) => (Some(d), d.size() as u64 * 8),
            None => match UNREAD.iter().find(|(n, _)| *n == dtype) {
                Some(&(_, bits)) => (None, bits),
                None => return Err(bad(format!("dtype {dtype:?} is not a safetensors dtype"))),
            },
        };
        let nbits = count.checked_mul(bits).ok_or_else(|| bad("its byte size overflows".into()))?;
        if end < begin {
            return Err(bad(format!("data_offsets [{begin}, {end}] end before they begin")));
        }
        if !nbits.is_multiple_of(8) || end - begin != nbits / 8 {
            return Err(bad(format!(
                "data_offsets [{begin}, {end}] hold {} bytes but shape {shape:?} of {dtype} needs {}",
                end - begin,
                nbits.div_ceil(8)
            )));
        }
        spans.push((begin, end, name.clone()));
        match known {
            Some(d) => {
                let shape = shape
                    .iter()
                    .map(|&s| usize::try_from(s))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| bad("a dimension too large for this machine".into()))?;
                let elements = elements(&shape).ok_or_else(|| bad("its shape's element count overflows".into()))?;
                listing.tensors.push(Info {
                    name,
                    dtype: d,
                    endian: Endian::Little,
                    stored: dtype,
                    shape,
                    fortran: false,
                    elements,
                    location: Location::Raw { offset: data_start + begin },
                });
            }
            None => listing.skipped.push((name, format!("{dtype} elements are not read by qscope"))),
        }
    }
    spans.sort();
    let mut at = 0;
    for (begin, end, name) in &spans {
        if *begin != at {
            let what =
                if *begin < at { "overlaps the tensor before it" } else { "leaves a gap after the tensor before it" };
            return Err(format!(
                "safetensors: tensor {name:?}: data_offsets [{begin}, {end}] {what} (which ends at {at})"
            ));
        }
        at = *end;
    }
    if at != data_len {
        return Err(format!(
            "safetensors: the tensors' data ends at byte {at} of the data but the file holds {data_len} bytes of data{}",
            if at > data_len { " (truncated?)" } else { "" }
        ));
    }
    Ok(listing)
}

fn metadata(value: Json) -> Result<Vec<(String, String)>, String> {
    let Json::Object(fields) = value else {
        return Err(format!("safetensors: __metadata__ is {}, not an object", value.kind()));
    };
    fields
        .into_iter()
        .map(|(k, v)| match v {
            Json::String(s) => Ok((k, s)),
            other => Err(format!("safetensors: __metadata__ {k:?} is {}, not a string", other.kind())),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{block_on, list as list_any, read};

    /// A file of this header (padded to 8 bytes, as the reference writes it) and data.
    pub(crate) fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut h = header.as_bytes().to_vec();
        while !h.len().is_multiple_of(8) {
            h.push(b' ');
        }
        let mut f = (h.len() as u64).to_le_bytes().to_vec();
        f.extend(h);
        f.extend(data);
        f
    }

    fn err(header: &str, data: &[u8]) -> String {
        block_on(list_any(&file(header, data)[..])).unwrap_err()
    }

    #[test]
    fn a_file_lists_its_tensors_and_metadata_and_reads_one() {
        let data: Vec<u8> = [1.0f32, -2.0, 0.5].iter().flat_map(|v| v.to_le_bytes()).chain([0x80, 0x3f]).collect();
        let f = file(
            r#"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"b":{"dtype":"BF16","shape":[1],"data_offsets":[12,14]}}"#,
            &data,
        );
        let l = block_on(list_any(&f[..])).unwrap();
        assert_eq!(l.metadata, [("format".to_string(), "pt".to_string())]);
        assert_eq!(l.tensors.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["w", "b"]);
        assert_eq!(block_on(read(&f[..], &l.tensors[0])).unwrap().values, [1.0, -2.0, 0.5]);
        assert_eq!(block_on(read(&f[..], &l.tensors[1])).unwrap().values, [1.0]);
    }

    #[test]
    fn a_byte_length_that_disagrees_with_the_shape_is_named() {
        let e = err(r#"{"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,12]}}"#, &[0; 12]);
        assert!(e.contains("\"w\"") && e.contains("needs 24"), "{e}");
    }

    #[test]
    fn overlapping_and_gapped_offsets_are_refused() {
        let two = |a: &str, b: &str| {
            format!(
                r#"{{"a":{{"dtype":"U8","shape":[4],"data_offsets":{a}}},"b":{{"dtype":"U8","shape":[4],"data_offsets":{b}}}}}"#
            )
        };
        assert!(err(&two("[0,4]", "[2,6]"), &[0; 6]).contains("overlaps"));
        assert!(err(&two("[0,4]", "[6,10]"), &[0; 10]).contains("gap"));
    }

    #[test]
    fn data_past_the_end_or_short_of_it_is_refused() {
        let h = r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
        assert!(err(h, &[0; 8]).contains("truncated"));
        assert!(err(h, &[0; 20]).contains("holds 20 bytes"));
    }

    #[test]
    fn a_shape_whose_size_overflows_is_refused() {
        let e = err(r#"{"w":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}"#, &[0; 8]);
        assert!(e.contains("overflows"), "{e}");
    }

    #[test]
    fn an_unknown_dtype_is_named() {
        let e = err(r#"{"w":{"dtype":"F31","shape":[1],"data_offsets":[0,4]}}"#, &[0; 4]);
        assert!(e.contains("\"F31\" is not a safetensors dtype"), "{e}");
    }

    #[test]
    fn a_header_longer_than_the_limit_or_the_file_is_refused() {
        let mut f = (MAX_HEADER + 1).to_le_bytes().to_vec();
        f.extend(b"{}");
        assert!(block_on(list(&f[..])).unwrap_err().contains("above the limit"));
        let mut f = 100u64.to_le_bytes().to_vec();
        f.extend(b"{}");
        assert!(block_on(list(&f[..])).unwrap_err().contains("truncated"));
    }

    #[test]
    fn a_header_that_is_not_utf8_is_named() {
        let mut f = 8u64.to_le_bytes().to_vec();
        f.extend(b"{\"\xff\":1}  ");
        assert!(block_on(list(&f[..])).unwrap_err().contains("not UTF-8"));
    }

    #[test]
    fn packed_float4_is_listed_as_not_read() {
        let l =
            block_on(list_any(&file(r#"{"q":{"dtype":"F4","shape":[4],"data_offsets":[0,2]}}"#, &[0; 2])[..])).unwrap();
        assert!(l.tensors.is_empty());
        assert_eq!(l.skipped[0].0, "q");
    }
}

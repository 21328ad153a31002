//! NumPy's `.npy`: the magic `\x93NUMPY`, a version (1.0, 2.0 or 3.0), the header's length (2
//! bytes little-endian in version 1, 4 after), and the header — a Python dict literal
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`, Latin-1 (UTF-8 in 3.0) — then
//! the data. Read here: floats `f2 f4 f8`, integers `i1…i8` and `u1…u8`, booleans `b1`, in any
//! byte order (`<`, `>`, `|`, `=`), C or Fortran order.

use crate::{Dtype, Endian, Format, Info, Listing, Location, Source, elements};

/// The largest header read (numpy itself refuses headers above 10,000 bytes unless told to).
pub const MAX_HEADER: usize = 1 << 20;

/// What a `.npy` header says.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub dtype: Dtype,
    pub endian: Endian,
    pub descr: String,
    pub fortran: bool,
    pub shape: Vec<usize>,
    /// Where the data starts: the magic, version, length and header bytes.
    pub data_start: usize,
}

/// How many bytes the header of a `.npy` starting with `prefix` (at least 12 bytes, or the whole
/// file) takes, data start included.
pub fn header_len(prefix: &[u8]) -> Result<usize, String> {
    if !prefix.starts_with(b"\x93NUMPY") {
        return Err(".npy: the file does not start with \\x93NUMPY".into());
    }
    let (major, minor) = match prefix.get(6..8) {
        Some(v) => (v[0], v[1]),
        None => return Err(".npy: the file ends inside its version".into()),
    };
    let (len, at) = match major {
        1 => (prefix.get(8..10).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize), 10),
        2 | 3 => (prefix.get(8..12).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize), 12),
        _ => return Err(format!(".npy: format version {major}.{minor} is not one of 1.0, 2.0, 3.0")),
    };
    let len = len.ok_or(".npy: the file ends inside its header length")?;
    if len > MAX_HEADER {
        return Err(format!(".npy: the header says it is {len} bytes, above the limit of {MAX_HEADER}"));
    }
    Ok(at + len)
}

/// Parses the header of a `.npy` whose first bytes (at least [`header_len`] of them) are given.
pub fn parse_header(bytes: &[u8]) -> Result<Header, String> {
    let data_start = header_len(bytes)?;
    let raw = bytes.get(..data_start).ok_or(".npy: the file ends inside its header (truncated?)")?;
    let start = if bytes[6] == 1 { 10 } else { 12 };
    let text: String = if bytes[6] == 3 {
        std::str::from_utf8(&raw[start..]).map_err(|_| ".npy: a version 3.0 header that is not UTF-8")?.to_string()
    } else {
        raw[start..].iter().map(|&b| char::from(b)).collect()
    };
    let fields = dict(&text).map_err(|e| format!(".npy header: {e}"))?;
    let get = |k: &str| fields.iter().find(|(key, _)| key == k).map(|(_, v)| v);
    let descr = match get("descr") {
        Some(Value::Str(s)) => s.clone(),
        Some(Value::Other) => return Err(".npy: a structured dtype (record array) is not a tensor qscope reads".into()),
        _ => return Err(".npy: the header has no 'descr'".into()),
    };
    let fortran = match get("fortran_order") {
        Some(Value::Bool(b)) => *b,
        _ => return Err(".npy: the header has no 'fortran_order' True or False".into()),
    };
    let shape = match get("shape") {
        Some(Value::Tuple(t)) => t.clone(),
        _ => return Err(".npy: the header has no 'shape' tuple".into()),
    };
    let (dtype, endian) = descr_dtype(&descr)?;
    Ok(Header { dtype, endian, descr, fortran, shape, data_start })
}

/// The dtype of a NumPy type string such as `<f4`.
pub fn descr_dtype(descr: &str) -> Result<(Dtype, Endian), String> {
    let unknown =
        || format!(".npy: dtype '{descr}' is not one qscope reads (floats f2 f4 f8, integers i1–i8 and u1–u8, b1)");
    let mut chars = descr.chars();
    let endian = match chars.next() {
        Some('<' | '|' | '=') => Endian::Little,
        Some('>') => Endian::Big,
        _ => return Err(unknown()),
    };
    let dtype = match chars.as_str() {
        "f2" => Dtype::F16,
        "f4" => Dtype::F32,
        "f8" => Dtype::F64,
        "i1" => Dtype::I8,
        "i2" => Dtype::I16,
        "i4" => Dtype::I32,
        "i8" => Dtype::I64,
        "u1" => Dtype::U8,
        "u2" => Dtype::U16,
        "u4" => Dtype::U32,
        "u8" => Dtype::U64,
        "b1" => Dtype::Bool,
        _ => return Err(unknown()),
    };
    // '=' is the writer's native order; numpy writes '<' or '>' explicitly, so '=' only comes
    // from hand-made files, taken as little-endian (every platform numpy runs on today).
    Ok((dtype, endian))
}

/// A tensor of this header whose data starts at `location`, checked against `available` bytes.
pub fn info(name: String, h: &Header, location: Location, available: u64) -> Result<Info, String> {
    let elements = elements(&h.shape).ok_or_else(|| format!("{name}: the shape's element count overflows"))?;
    let bytes =
        elements.checked_mul(h.dtype.size() as u64).ok_or_else(|| format!("{name}: the byte size overflows"))?;
    if bytes > available {
        return Err(format!(
            "{name}: shape {:?} of '{}' needs {bytes} bytes but the file holds {available} after the header (truncated?)",
            h.shape, h.descr
        ));
    }
    Ok(Info {
        name,
        dtype: h.dtype,
        endian: h.endian,
        stored: h.descr.clone(),
        shape: h.shape.clone(),
        fortran: h.fortran,
        elements,
        location,
    })
}

/// Reads the header of a `.npy` file.
pub async fn list<S: Source + ?Sized>(src: &S) -> Result<Listing, String> {
    let prefix = src.read(0, src.len().min(12) as usize).await?;
    let n = header_len(&prefix)?;
    if n as u64 > src.len() {
        return Err(format!(".npy: the header says it is {n} bytes but the file has {} (truncated?)", src.len()));
    }
    let head = src.read(0, n).await?;
    let h = parse_header(&head)?;
    let t = info("-".into(), &h, Location::Raw { offset: n as u64 }, src.len() - n as u64)
        .map_err(|e| format!(".npy: {e}"))?;
    Ok(Listing { format: Format::Npy, tensors: vec![t], skipped: Vec::new(), metadata: Vec::new() })
}

enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
    /// A list (a structured dtype's descr) or anything else.
    Other,
}

/// The header's dict literal: string keys; string, boolean, tuple-of-ints or other values.
fn dict(text: &str) -> Result<Vec<(String, Value)>, String> {
    let s = text.trim_end_matches(['\n', ' ', '\0']).trim_start();
    let body = s.strip_prefix('{').and_then(|s| s.strip_suffix('}')).ok_or("not a dict literal {…}")?;
    let mut p = Lit { s: body.as_bytes(), i: 0 };
    let mut out = Vec::new();
    loop {
        p.space();
        if p.i == p.s.len() {
            return Ok(out);
        }
        let key = p.string()?;
        p.space();
        if !p.eat(b':') {
            return Err(format!("expected ':' after '{key}'"));
        }
        p.space();
        let v = p.value()?;
        out.push((key, v));
        p.space();
        if !p.eat(b',') && p.i != p.s.len() {
            return Err("expected ',' between entries".into());
        }
    }
}

struct Lit<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lit<'_> {
    fn space(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\n')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.s.get(self.i) == Some(&b);
        self.i += usize::from(hit);
        hit
    }

    fn string(&mut self) -> Result<String, String> {
        let q = match self.s.get(self.i) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => return Err("expected a quoted string".into()),
        };
        let start = self.i + 1;
        let end = self.s[start..].iter().position(|&b| b == q).ok_or("unterminated string")? + start;
        self.i = end + 1;
        Ok(String::from_utf8_lossy(&self.s[start..end]).into_owned())
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.s.get(self.i) {
            Some(b'\'' | b'"') => self.string().map(Value::Str),
            Some(b'T') if self.s[self.i..].starts_with(b"True") => {
                self.i += 4;
                Ok(Value::Bool(true))
            }
            Some(b'F') if self.s[self.i..].starts_with(b"False") => {
                self.i += 5;
                Ok(Value::Bool(false))
            }
            Some(b'(') => {
                self.i += 1;
                let mut dims = Vec::new();
                loop {
                    self.space();
                    if self.eat(b')') {
                        return Ok(Value::Tuple(dims));
                    }
                    let start = self.i;
                    while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                        self.i += 1;
                    }
                    let digits = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                    let d = digits
                        .parse::<usize>()
                        .map_err(|_| "a shape dimension that is not a whole number that fits".to_string())?;
                    dims.push(d);
                    // Python 2 wrote long integers with an L.
                    self.eat(b'L');
                    self.space();
                    if !self.eat(b',') {
                        self.space();
                        if !self.eat(b')') {
                            return Err("expected ',' or ')' in the shape".into());
                        }
                        return Ok(Value::Tuple(dims));
                    }
                }
            }
            Some(b'[') => {
                // Skip a (possibly nested) list: a structured dtype.
                let mut depth = 0usize;
                while let Some(&b) = self.s.get(self.i) {
                    self.i += 1;
                    match b {
                        b'[' | b'(' => depth += 1,
                        b']' | b')' => {
                            depth -= 1;
                            if depth == 0 {
                                return Ok(Value::Other);
                            }
                        }
                        _ => {}
                    }
                }
                Err("unterminated list".into())
            }
            _ => Err("unexpected value".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{block_on, list as list_any, read};

    /// A version-1 `.npy` of this header dict and data, padded as numpy pads it.
    pub(crate) fn npy(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut h = dict.as_bytes().to_vec();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(b' ');
        }
        h.push(b'\n');
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend((h.len() as u16).to_le_bytes());
        f.extend(h);
        f.extend(data);
        f
    }

    #[test]
    fn a_big_endian_fortran_array_reads_row_major() {
        let data: Vec<u8> = [0.0f64, 3.0, 1.0, 4.0, 2.0, 5.0].iter().flat_map(|v| v.to_be_bytes()).collect();
        let f = npy("{'descr': '>f8', 'fortran_order': True, 'shape': (2, 3), }", &data);
        let l = block_on(list_any(&f[..])).unwrap();
        assert_eq!(l.tensors[0].shape, [2, 3]);
        assert_eq!(block_on(read(&f[..], &l.tensors[0])).unwrap().values, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn a_zero_dimensional_array_has_one_element() {
        let f = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", &2.5f32.to_le_bytes());
        let l = block_on(list_any(&f[..])).unwrap();
        assert_eq!((l.tensors[0].elements, l.tensors[0].shape.len()), (1, 0));
    }

    #[test]
    fn a_structured_dtype_is_refused_by_name() {
        let f = npy("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }", &[0; 8]);
        assert!(block_on(list_any(&f[..])).unwrap_err().contains("structured"));
    }

    #[test]
    fn object_and_string_dtypes_are_named() {
        let f = npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", &[0; 8]);
        assert!(block_on(list_any(&f[..])).unwrap_err().contains("'|O'"));
    }

    #[test]
    fn a_truncated_data_part_is_refused() {
        let f = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", &[0; 8]);
        assert!(block_on(list_any(&f[..])).unwrap_err().contains("truncated"));
    }

    #[test]
    fn an_unknown_version_is_named() {
        let mut f = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", &[0; 4]);
        f[6] = 9;
        assert!(block_on(list_any(&f[..])).unwrap_err().contains("version 9.0"));
    }
}

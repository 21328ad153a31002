//! Tensor files, read in pure Rust by the command line and the page alike: safetensors, NumPy's
//! `.npy` and `.npz`.
//!
//! Reading is two steps, so a multi-gigabyte checkpoint opens in the time its header takes:
//! [`list`] reads the header (for `.npz`, the zip directory and each member's `.npy` header) and
//! returns a [`Listing`] of every tensor's name, dtype, shape and place; [`read`] then reads one
//! tensor's bytes — only those — and converts them to float32 as `torch.Tensor.float()` would
//! ([`Dtype::decode`]). Every check the safetensors reference makes is made here too (header size,
//! offsets in order, in bounds and without gaps or overlap, byte length = shape × dtype size), and
//! a file of another kind (a PyTorch pickle or zip, GGUF, ONNX, HDF5, a `.keras` zip) is named
//! with one line of Python that writes safetensors or `.npz` from it ([`detect`]).
//!
//! The bytes come from a [`Source`]: a file the command line seeks in, the page's `File` (sliced),
//! or bytes in memory.

pub mod detect;
pub mod distinct;
pub mod dtype;
pub mod json;
pub mod npy;
pub mod npz;
pub mod safetensors;
pub mod source;
pub mod stats;

pub use dtype::{Dtype, Endian};
pub use source::{Source, block_on};

/// The kinds of file read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Safetensors,
    Npy,
    Npz,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Safetensors => "safetensors",
            Format::Npy => ".npy",
            Format::Npz => ".npz",
        }
    }
}

/// Where a tensor's bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// At this offset, as they are.
    Raw { offset: u64 },
    /// In a deflated `.npz` member: `compressed` bytes at `offset` inflate to the member, whose
    /// first `skip` bytes are its `.npy` header.
    Deflated { offset: u64, compressed: u64, skip: u64 },
}

/// One tensor of a file, as its header describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// The safetensors key, the `.npz` member's name without `.npy` (as `np.load` names it), or
    /// `-` for a `.npy` file's one array.
    pub name: String,
    pub dtype: Dtype,
    pub endian: Endian,
    /// The dtype as the file writes it: `BF16`, `<f4`, `>i8`…
    pub stored: String,
    pub shape: Vec<usize>,
    /// Column-major data (`.npy`'s `fortran_order`); [`read`] returns row-major values.
    pub fortran: bool,
    /// The number of elements (the shape's product, checked).
    pub elements: u64,
    pub location: Location,
}

impl Info {
    /// The tensor's size in bytes.
    pub fn bytes(&self) -> u64 {
        self.elements * self.dtype.size() as u64
    }

    /// The shape as `[3, 4]`.
    pub fn shape_text(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(usize::to_string).collect();
        format!("[{}]", dims.join(", "))
    }
}

/// What [`list`] found in a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Listing {
    pub format: Format,
    /// The tensors qscope can read, in file order.
    pub tensors: Vec<Info>,
    /// Tensors (or `.npz` members) listed in the file but not readable here, each with why.
    pub skipped: Vec<(String, String)>,
    /// safetensors' `__metadata__`, in file order.
    pub metadata: Vec<(String, String)>,
}

impl Listing {
    /// The tensor of this name.
    pub fn find(&self, name: &str) -> Option<&Info> {
        self.tensors.iter().find(|t| t.name == name)
    }
}

/// A tensor's values as float32 in row-major (C) order, and what the conversion met.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tensor {
    pub values: Vec<f32>,
    pub shape: Vec<usize>,
    /// Elements the cast to float32 changed (float64, wide integers), NaN aside.
    pub rounded: usize,
    pub nan: usize,
    pub pos_inf: usize,
    pub neg_inf: usize,
}

impl Tensor {
    /// Elements that are NaN or infinite.
    pub fn not_finite(&self) -> usize {
        self.nan + self.pos_inf + self.neg_inf
    }
}

/// The product of a shape's dimensions, or `None` when it overflows 64 bits.
pub fn elements(shape: &[usize]) -> Option<u64> {
    shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d as u64))
}

/// Reads a file's header: its tensors' names, dtypes, shapes and places. Only the header is read
/// (for `.npz`, the zip directory and each member's first bytes). `Err` names the problem.
pub async fn list<S: Source + ?Sized>(src: &S) -> Result<Listing, String> {
    let head = src.read(0, src.len().min(64) as usize).await?;
    match detect::detect(&head, src.len())? {
        Format::Safetensors => safetensors::list(src).await,
        Format::Npy => npy::list(src).await,
        Format::Npz => npz::list(src).await,
    }
}

/// Bytes read and converted at a time: the whole tensor's bytes are never held at once.
pub const CHUNK: usize = 1 << 20;

/// Elements converted at a time by [`read_into`]: 64 KB of float32, in the core's own cache.
const DECODED: usize = 1 << 14;

/// Reads one tensor's bytes — only those — and converts them to float32, row-major.
pub async fn read<S: Source + ?Sized>(src: &S, info: &Info) -> Result<Tensor, String> {
    read_into(src, info, Vec::new()).await
}

/// [`read`] into `spare`'s memory (cleared first): a scan reading tensor after tensor keeps one
/// buffer instead of asking the system for fresh pages each time.
pub async fn read_into<S: Source + ?Sized>(src: &S, info: &Info, spare: Vec<f32>) -> Result<Tensor, String> {
    let len = byte_len(info)?;
    let mut values = spare;
    values.clear();
    match info.location {
        Location::Raw { offset } => {
            values.reserve(len / info.dtype.size());
            let (mut rounded, mut not_finite) = (0, 0);
            raw_chunks(src, info, offset, len, |bytes| {
                // Converted and counted a cache-sized piece at a time, so the count reads values
                // still in the cache.
                for piece in bytes.chunks(DECODED * info.dtype.size()) {
                    let start = values.len();
                    info.dtype.decode(info.endian, piece, &mut values);
                    not_finite += count_not_finite(&values[start..]);
                }
                rounded += info.dtype.rounded(info.endian, bytes);
            })
            .await?;
            Ok(finish(info, values, rounded, Some(not_finite)))
        }
        Location::Deflated { offset, compressed, skip } => {
            let c = usize::try_from(compressed).map_err(|_| format!("{}: too large for this machine", info.name))?;
            if offset.checked_add(compressed).is_none_or(|end| end > src.len()) {
                return Err(format!("{}: its bytes run past the end of the file (truncated?)", info.name));
            }
            let data = src.read(offset, c).await?;
            let bytes = npz::inflate_range(&data, skip as usize, len).map_err(|e| format!("{}: {e}", info.name))?;
            info.dtype.decode(info.endian, &bytes, &mut values);
            Ok(finish(info, values, info.dtype.rounded(info.endian, &bytes), None))
        }
    }
}

/// The tensor's values handed to `each` in pieces of `piece` elements (the last may be shorter),
/// in row-major order, as they are read: a scan quantizes a piece while it is in the cache and
/// never holds the tensor as float32. `Ok(false)`, with nothing read, where the values must be
/// reordered or inflated first ([`read`] them).
pub async fn read_pieces<S: Source + ?Sized>(
    src: &S,
    info: &Info,
    piece: usize,
    buffer: &mut Vec<f32>,
    mut each: impl FnMut(&[f32]),
) -> Result<bool, String> {
    let Location::Raw { offset } = info.location else { return Ok(false) };
    if info.fortran && info.shape.len() > 1 {
        return Ok(false);
    }
    let len = byte_len(info)?;
    let (size, piece) = (info.dtype.size(), piece.max(1));
    buffer.clear();
    buffer.reserve(piece.min(len / size));
    raw_chunks(src, info, offset, len, |mut rest| {
        while !rest.is_empty() {
            let take = ((piece - buffer.len()) * size).min(rest.len());
            info.dtype.decode(info.endian, &rest[..take], buffer);
            rest = &rest[take..];
            if buffer.len() == piece {
                each(buffer);
                buffer.clear();
            }
        }
    })
    .await?;
    if !buffer.is_empty() {
        each(buffer);
    }
    Ok(true)
}

/// The tensor's length in bytes, where this machine can address it.
fn byte_len(info: &Info) -> Result<usize, String> {
    usize::try_from(info.bytes()).map_err(|_| format!("{}: too large for this machine", info.name))
}

/// The `len` bytes from `offset` handed to `each` [`CHUNK`] at a time (whole elements each), after
/// checking that they lie inside the file.
async fn raw_chunks<S: Source + ?Sized>(
    src: &S,
    info: &Info,
    offset: u64,
    len: usize,
    mut each: impl FnMut(&[u8]),
) -> Result<(), String> {
    if offset.checked_add(len as u64).is_none_or(|end| end > src.len()) {
        return Err(format!("{}: its bytes run past the end of the file (truncated?)", info.name));
    }
    let step = CHUNK - CHUNK % info.dtype.size();
    let (mut at, mut bytes) = (0, Vec::new());
    while at < len {
        let k = step.min(len - at);
        src.read_to(offset + at as u64, k, &mut bytes).await?;
        each(&bytes);
        at += k;
    }
    Ok(())
}

/// Converts a tensor's bytes (exactly [`Info::bytes`] of them) to its [`Tensor`].
pub fn decode(info: &Info, bytes: &[u8]) -> Tensor {
    let mut values = Vec::with_capacity(bytes.len() / info.dtype.size());
    info.dtype.decode(info.endian, bytes, &mut values);
    finish(info, values, info.dtype.rounded(info.endian, bytes), None)
}

/// The tensor of converted `values` (in the file's order), `rounded` of them changed by the cast:
/// reordered row-major, its NaN and infinities counted (`not_finite`: how many, where the reader
/// counted them already).
fn finish(info: &Info, mut values: Vec<f32>, rounded: usize, not_finite: Option<usize>) -> Tensor {
    if info.fortran && info.shape.len() > 1 {
        values = fortran_to_c(&values, &info.shape);
    }
    let mut t = Tensor { rounded, shape: info.shape.clone(), ..Tensor::default() };
    // The kinds are told apart only where there are any.
    let not_finite = not_finite.unwrap_or_else(|| count_not_finite(&values));
    if not_finite > 0 {
        for v in values.iter().filter(|v| !v.is_finite()) {
            if v.is_nan() {
                t.nan += 1;
            } else if *v > 0.0 {
                t.pos_inf += 1;
            } else {
                t.neg_inf += 1;
            }
        }
    }
    t.values = values;
    t
}

/// NaN and ±inf among `values`: one compare per element, no branch.
fn count_not_finite(values: &[f32]) -> usize {
    values.iter().map(|v| usize::from(v.to_bits() & 0x7f80_0000 == 0x7f80_0000)).sum()
}

/// Column-major values of a shape, reordered row-major.
fn fortran_to_c(values: &[f32], shape: &[usize]) -> Vec<f32> {
    let n = values.len();
    let mut out = vec![0.0; n];
    // Column-major strides: the first index moves fastest.
    let mut strides = vec![1usize; shape.len()];
    for k in 1..shape.len() {
        strides[k] = strides[k - 1] * shape[k - 1];
    }
    let mut index = vec![0usize; shape.len()];
    for o in out.iter_mut() {
        *o = values[index.iter().zip(&strides).map(|(i, s)| i * s).sum::<usize>()];
        for k in (0..shape.len()).rev() {
            index[k] += 1;
            if index[k] < shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_order_is_returned_row_major() {
        // [[0, 1, 2], [3, 4, 5]] stored column by column.
        let col = [0.0, 3.0, 1.0, 4.0, 2.0, 5.0];
        assert_eq!(fortran_to_c(&col, &[2, 3]), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn a_shape_whose_product_overflows_has_no_element_count() {
        assert_eq!(elements(&[1 << 40, 1 << 40]), None);
        assert_eq!(elements(&[]), Some(1));
        assert_eq!(elements(&[3, 0]), Some(0));
    }
}

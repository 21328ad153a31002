//! Which kind of file this is, from its first bytes — never from its name. A file qscope does
//! not read is named, with one line of Python that writes one it does.

use crate::Format;

/// One line of Python that writes safetensors from a PyTorch checkpoint (a state dict).
pub const FROM_TORCH: &str = "import torch; from safetensors.torch import save_file; \
save_file({k: v.contiguous() for k, v in torch.load('model.pt', map_location='cpu').items()}, 'model.safetensors')";

/// One line of Python that writes `.npz` from a GGUF file (its unquantized tensors).
pub const FROM_GGUF: &str = "import numpy as np; from gguf import GGUFReader; \
np.savez('model.npz', **{t.name: np.asarray(t.data) for t in GGUFReader('model.gguf').tensors})";

/// One line of Python that writes `.npz` from an ONNX model's weights.
pub const FROM_ONNX: &str = "import numpy as np, onnx; from onnx import numpy_helper; \
np.savez('model.npz', **{t.name: numpy_helper.to_array(t) for t in onnx.load('model.onnx').graph.initializer})";

/// One line of Python that writes `.npz` from a Keras model.
pub const FROM_KERAS: &str = "import numpy as np, keras; \
np.savez('weights.npz', **{w.path: np.asarray(w) for w in keras.saving.load_model('model.keras').weights})";

fn other(what: &str, python: &str) -> String {
    format!(
        "this is {what}, which qscope does not read (it reads safetensors, .npy and .npz). Write one with Python:\n    {python}"
    )
}

/// The format of a file from its first bytes (up to 64) and its length; `Err` names a format
/// qscope does not read, or says it is none it knows.
pub fn detect(head: &[u8], len: u64) -> Result<Format, String> {
    if len == 0 {
        return Err("the file is empty".into());
    }
    if head.starts_with(b"\x93NUMPY") {
        return Ok(Format::Npy);
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        // A zip: .npz, or PyTorch's and Keras' zips — told apart by their members (npz::list).
        return Ok(Format::Npz);
    }
    if head.starts_with(b"GGUF") {
        return Err(other("a GGUF file (llama.cpp)", FROM_GGUF));
    }
    if head.starts_with(b"\x89HDF\r\n\x1a\n") {
        return Err(other("an HDF5 file (Keras .h5 weights)", FROM_KERAS));
    }
    // safetensors before pickle: a header of 640, 896, 1152 or 1408 bytes has a length whose
    // first two bytes are a pickle's protocol opcode (0x80, 2–5); a pickle's first eight bytes
    // read as a length far past its end.
    if head.len() >= 9 && head[8] == b'{' && u64::from_le_bytes(head[..8].try_into().expect("8 bytes")) < len {
        return Ok(Format::Safetensors);
    }
    // A pickle (PyTorch's legacy .pt/.bin): protocol 2–5 opcode, or torch's legacy magic number.
    if head.len() >= 2 && head[0] == 0x80 && (2..=5).contains(&head[1]) {
        return Err(other("a Python pickle (a PyTorch .pt or .bin checkpoint)", FROM_TORCH));
    }
    if head.len() >= 9 && head[8] == b'{' {
        return Ok(Format::Safetensors); // a header longer than the file: parse names it
    }
    // An ONNX ModelProto starts with field 1 (ir_version, a varint) and has field 8
    // (opset_import) soon after; a plain protobuf guess, after every magic number failed.
    if head.len() >= 2 && head[0] == 0x08 && head[1] < 0x20 {
        return Err(other("probably an ONNX model (protobuf)", FROM_ONNX));
    }
    if head.len() >= 8 {
        let n = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
        if n <= len && head.len() > 8 {
            return Err(format!(
                "not a safetensors file: the header of {n} bytes should start with '{{' but starts with byte 0x{:02x}",
                head[8]
            ));
        }
    }
    Err("not a file qscope reads: it is neither safetensors (8-byte header length, then JSON), .npy (\\x93NUMPY) nor .npz (a zip)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_formats_are_told_by_their_first_bytes() {
        assert_eq!(detect(b"\x93NUMPY\x01\x00", 100), Ok(Format::Npy));
        assert_eq!(detect(b"PK\x03\x04rest", 100), Ok(Format::Npz));
        assert_eq!(detect(b"\x10\0\0\0\0\0\0\0{\"a\":1}", 100), Ok(Format::Safetensors));
    }

    #[test]
    fn a_safetensors_header_whose_length_starts_like_a_pickle_is_safetensors() {
        // 0x0580 = 1408 bytes of header: 0x80 0x05 is also pickle protocol 5's first opcode.
        for n in [0x0280u64, 0x0380, 0x0480, 0x0580] {
            let mut head = n.to_le_bytes().to_vec();
            head.extend(b"{\"__metadata__\"");
            assert_eq!(detect(&head, n + 8 + 100), Ok(Format::Safetensors), "{n}");
        }
        // A pickle whose ninth byte happens to be '{' reads as a length past the file's end.
        assert!(detect(b"\x80\x05\x95\x10\x00\x00\x00\x01{", 1000).unwrap_err().contains("pickle"));
    }

    #[test]
    fn other_formats_are_named_with_a_line_of_python() {
        for (head, name, python) in [
            (&b"GGUF\x03\x00\x00\x00"[..], "GGUF", "GGUFReader"),
            (b"\x80\x02\x8a\x0alZ", "pickle", "save_file"),
            (b"\x89HDF\r\n\x1a\n", "HDF5", "keras"),
            (b"\x08\x07\x12\x07pytorch", "ONNX", "onnx.load"),
        ] {
            let e = detect(head, 1000).unwrap_err();
            assert!(e.contains(name) && e.contains(python), "{e}");
        }
    }

    #[test]
    fn an_empty_or_unknown_file_says_so() {
        assert!(detect(b"", 0).unwrap_err().contains("empty"));
        assert!(detect(b"hello world, this is text", 25).unwrap_err().contains("neither"));
    }
}

//! NumPy's `.npz`: a zip of `.npy` members, stored (`np.savez`) or deflated
//! (`np.savez_compressed`), ZIP64 fields included (numpy writes every member with them). The
//! listing reads the zip's end record and central directory, then each member's local header and
//! the start of its data — enough to inflate its `.npy` header. A PyTorch checkpoint (a zip with
//! `data.pkl`) or a `.keras` file (a zip with `config.json`) is named, with the Python that writes
//! a file qscope reads.

use miniz_oxide::inflate::decompress_to_vec_with_limit;

use crate::detect::{FROM_KERAS, FROM_TORCH};
use crate::npy::{self, header_len, parse_header};
use crate::{Format, Listing, Location, Source};

const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const LOCATOR64: u32 = 0x0706_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;

/// The largest central directory read (a million members' worth).
const MAX_DIRECTORY: u64 = 64 << 20;

fn u16_at(b: &[u8], i: usize) -> u64 {
    b.get(i..i + 2).map_or(0, |s| u64::from(u16::from_le_bytes([s[0], s[1]])))
}

fn u32_at(b: &[u8], i: usize) -> u64 {
    b.get(i..i + 4).map_or(0, |s| u64::from(u32::from_le_bytes([s[0], s[1], s[2], s[3]])))
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    b.get(i..i + 8).map_or(0, |s| u64::from_le_bytes(s.try_into().expect("8 bytes")))
}

/// One member of the central directory.
struct Member {
    name: String,
    method: u64,
    flags: u64,
    compressed: u64,
    size: u64,
    local: u64,
}

/// Reads the zip's central directory.
async fn directory<S: Source + ?Sized>(src: &S) -> Result<Vec<Member>, String> {
    let len = src.len();
    let tail_len = len.min(22 + 0xffff);
    let tail = src.read(len - tail_len, tail_len as usize).await?;
    // The end record is the last one whose comment runs exactly to the end of the file.
    let at = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(&tail, i) == u64::from(END) && i as u64 + 22 + u16_at(&tail, i + 20) == tail_len)
        .ok_or(".npz: no zip end record (the file is truncated, or not a zip)")?;
    let end = &tail[at..];
    let (mut count, mut size, mut offset) = (u16_at(end, 10), u32_at(end, 12), u32_at(end, 16));
    if count == 0xffff || size == 0xffff_ffff || offset == 0xffff_ffff {
        let locator = at.checked_sub(20).filter(|&l| u32_at(&tail, l) == u64::from(LOCATOR64));
        let l = locator.ok_or(".npz: a ZIP64 end record is announced but missing")?;
        let at64 = u64_at(&tail, l + 8);
        if at64.checked_add(56).is_none_or(|e| e > len) {
            return Err(".npz: the ZIP64 end record lies past the end of the file".into());
        }
        let e64 = src.read(at64, 56).await?;
        if u32_at(&e64, 0) != u64::from(END64) {
            return Err(".npz: the ZIP64 end record is not where its locator says".into());
        }
        (count, size, offset) = (u64_at(&e64, 32), u64_at(&e64, 40), u64_at(&e64, 48));
    }
    if size > MAX_DIRECTORY {
        return Err(format!(".npz: a zip directory of {size} bytes, above the limit of {MAX_DIRECTORY}"));
    }
    if offset.checked_add(size).is_none_or(|e| e > len) {
        return Err(".npz: the zip directory lies past the end of the file (truncated?)".into());
    }
    let dir = src.read(offset, size as usize).await?;
    let mut members = Vec::new();
    let mut i = 0usize;
    while members.len() as u64 != count {
        if u32_at(&dir, i) != u64::from(CENTRAL) || i + 46 > dir.len() {
            return Err(format!(".npz: the zip directory has {} entries where it announced {count}", members.len()));
        }
        let (n, e, c) = (u16_at(&dir, i + 28) as usize, u16_at(&dir, i + 30) as usize, u16_at(&dir, i + 32) as usize);
        let name = dir.get(i + 46..i + 46 + n).ok_or(".npz: a zip directory entry runs past its end")?;
        let extra = dir.get(i + 46 + n..i + 46 + n + e).ok_or(".npz: a zip directory entry runs past its end")?;
        let mut m = Member {
            name: String::from_utf8_lossy(name).into_owned(),
            flags: u16_at(&dir, i + 8),
            method: u16_at(&dir, i + 10),
            compressed: u32_at(&dir, i + 20),
            size: u32_at(&dir, i + 24),
            local: u32_at(&dir, i + 42),
        };
        zip64(extra, &mut [&mut m.size, &mut m.compressed, &mut m.local]);
        members.push(m);
        i += 46 + n + e + c;
    }
    Ok(members)
}

/// Replaces each field that reads 0xFFFFFFFF with the next value of the ZIP64 extra field, in the
/// order the format lists them (size, compressed size, local header offset).
fn zip64(extra: &[u8], fields: &mut [&mut u64]) {
    let mut i = 0;
    while i + 4 <= extra.len() {
        let (id, n) = (u16_at(extra, i), u16_at(extra, i + 2) as usize);
        if id == 1 {
            let mut at = i + 4;
            for f in fields.iter_mut() {
                if **f == 0xffff_ffff && at + 8 <= i + 4 + n {
                    **f = u64_at(extra, at);
                    at += 8;
                }
            }
            return;
        }
        i += 4 + n;
    }
}

/// Lists the `.npy` members of a `.npz`.
pub async fn list<S: Source + ?Sized>(src: &S) -> Result<Listing, String> {
    let members = directory(src).await?;
    let has = |n: &str| members.iter().any(|m| m.name == n || m.name.ends_with(&format!("/{n}")));
    if has("data.pkl") {
        return Err(format!(
            "this is a PyTorch checkpoint (a zip holding data.pkl), which qscope does not read. Write safetensors with Python:\n    {FROM_TORCH}"
        ));
    }
    if has("config.json") && members.iter().any(|m| m.name.ends_with(".h5")) {
        return Err(format!(
            "this is a Keras model (.keras: a zip of config.json and HDF5 weights), which qscope does not read. Write .npz with Python:\n    {FROM_KERAS}"
        ));
    }
    let mut listing = Listing { format: Format::Npz, tensors: Vec::new(), skipped: Vec::new(), metadata: Vec::new() };
    for m in members {
        let Some(name) = m.name.strip_suffix(".npy") else {
            if !m.name.ends_with('/') {
                listing.skipped.push((m.name, "not a .npy member".into()));
            }
            continue;
        };
        match member(src, &m).await {
            Ok(info) => listing.tensors.push(npy::info(name.to_string(), &info.0, info.1, info.2)?),
            Err(e) => listing.skipped.push((name.to_string(), e)),
        }
    }
    if listing.tensors.is_empty() && listing.skipped.is_empty() {
        return Err(".npz: the zip holds no .npy member".into());
    }
    Ok(listing)
}

/// A member's `.npy` header, where its data is, and how many data bytes it holds.
async fn member<S: Source + ?Sized>(src: &S, m: &Member) -> Result<(npy::Header, Location, u64), String> {
    if m.flags & 1 != 0 {
        return Err("encrypted".into());
    }
    if m.local.checked_add(30).is_none_or(|e| e > src.len()) {
        return Err("its local header lies past the end of the file (truncated?)".into());
    }
    let local = src.read(m.local, 30).await?;
    if u32_at(&local, 0) != u64::from(LOCAL) {
        return Err("no local header where the directory says".into());
    }
    let data = m.local + 30 + u16_at(&local, 26) + u16_at(&local, 28);
    if data.checked_add(m.compressed).is_none_or(|e| e > src.len()) {
        return Err("its data runs past the end of the file (truncated?)".into());
    }
    match m.method {
        0 => {
            let first = src.read(data, m.compressed.min(12) as usize).await?;
            let n = header_len(&first)? as u64;
            if n > m.compressed {
                return Err("it ends inside its .npy header".into());
            }
            let h = parse_header(&src.read(data, n as usize).await?)?;
            Ok((h, Location::Raw { offset: data + n }, m.compressed - n))
        }
        8 => {
            // Inflate the member's start: a few KiB of input hold any usual header; a header
            // near the 1 MiB limit needs the whole member.
            let mut take = m.compressed.min(4096);
            loop {
                let input = src.read(data, take as usize).await?;
                let first = inflate_prefix(&input, 12);
                match header_len(&first) {
                    Ok(n) => {
                        let out = inflate_prefix(&input, n);
                        if out.len() >= n {
                            let h = parse_header(&out)?;
                            let location =
                                Location::Deflated { offset: data, compressed: m.compressed, skip: n as u64 };
                            return Ok((h, location, m.size.saturating_sub(n as u64)));
                        }
                    }
                    Err(e) if first.len() >= 12 => return Err(e),
                    Err(_) => {}
                }
                if take == m.compressed {
                    return Err("its deflated data ends inside its .npy header".into());
                }
                take = m.compressed.min(2 << 20);
            }
        }
        other => Err(format!("zip compression method {other} (only stored and deflated are read)")),
    }
}

/// Up to `want` bytes of a raw deflate stream's start (fewer when the input ends first).
fn inflate_prefix(input: &[u8], want: usize) -> Vec<u8> {
    match decompress_to_vec_with_limit(input, want) {
        Ok(v) => v,
        Err(e) => e.output,
    }
}

/// Inflates a whole member and returns `len` bytes after its first `skip`.
pub fn inflate_range(input: &[u8], skip: usize, len: usize) -> Result<Vec<u8>, String> {
    let want = skip.checked_add(len).ok_or("too large")?;
    let out = match decompress_to_vec_with_limit(input, want) {
        Ok(v) => v,
        Err(e) if e.output.len() == want => e.output,
        Err(e) => {
            return Err(format!(
                "the deflated data is corrupt or short ({:?} after {} bytes)",
                e.status,
                e.output.len()
            ));
        }
    };
    if out.len() < want {
        return Err(format!("the member inflates to {} bytes, short of the {want} its header needs", out.len()));
    }
    Ok(out[skip..].to_vec())
}

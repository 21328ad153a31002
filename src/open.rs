//! A tensor file named on the command line: `FILE` or `FILE:NAME`, opened by seeking (only the
//! header and the chosen tensor's bytes are read), with messages that name the file.

use std::fs::File;
use std::path::Path;

use qscope_explore::tensor::{Loaded, describe_listing};
use qscope_tensors::{Info, Listing, block_on, list, read};

/// An open tensor file and its listing.
pub(crate) struct Opened {
    pub path: String,
    pub file: File,
    pub listing: Listing,
}

/// Opens a file and reads its header.
pub(crate) fn open(path: &str) -> Result<Opened, String> {
    let file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let listing = block_on(list(&file)).map_err(|e| format!("{path}: {e}"))?;
    Ok(Opened { path: path.to_string(), file, listing })
}

impl Opened {
    /// The tensor named `name`, or the file's only tensor.
    pub fn pick(&self, name: Option<&str>) -> Result<&Info, String> {
        let path = &self.path;
        match name {
            Some(n) => self.listing.find(n).ok_or_else(|| {
                let why = self.listing.skipped.iter().find(|(s, _)| s == n).map(|(_, why)| format!(" ({why})"));
                match why {
                    Some(why) => format!("{path}: tensor '{n}' is not readable{why}"),
                    None => format!("{path}: no tensor '{n}'; it has {}", describe_listing(&self.listing, 8)),
                }
            }),
            None if self.listing.tensors.len() == 1 => Ok(&self.listing.tensors[0]),
            None => Err(format!(
                "{path} holds {} tensors: name one as {path}:NAME ({})",
                self.listing.tensors.len(),
                describe_listing(&self.listing, 8)
            )),
        }
    }

    /// Reads a tensor's values.
    pub fn load(&self, info: &Info) -> Result<Loaded, String> {
        let tensor = block_on(read(&self.file, info)).map_err(|e| format!("{}: {e}", self.path))?;
        Ok(Loaded::new(file_name(&self.path), info, tensor))
    }
}

/// `FILE` or `FILE:NAME` (a path that exists as given is a file, colons and all).
pub(crate) fn split(arg: &str) -> (&str, Option<&str>) {
    if Path::new(arg).exists() {
        return (arg, None);
    }
    match arg.rsplit_once(':') {
        Some((file, name)) if !file.is_empty() => (file, Some(name)),
        _ => (arg, None),
    }
}

/// Opens `FILE[:NAME]` and reads that tensor.
pub(crate) fn tensor(arg: &str) -> Result<Loaded, String> {
    let (path, name) = split(arg);
    let opened = open(path)?;
    let info = opened.pick(name)?.clone();
    opened.load(&info)
}

/// The file's name without its folders: what a link and a figure carry.
pub(crate) fn file_name(path: &str) -> String {
    Path::new(path).file_name().map_or(path.to_string(), |n| n.to_string_lossy().into_owned())
}

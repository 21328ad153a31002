//! Where a file's bytes come from: a file the command line seeks in, a `File` the page slices,
//! or bytes in memory. Reading is asynchronous because the page's is (`Blob.arrayBuffer()`);
//! the command line's reads finish at once and [`block_on`] runs them.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Random access to a file's bytes.
pub trait Source {
    /// The file's length in bytes.
    fn len(&self) -> u64;

    /// Whether the file is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `len` bytes from `offset`; the caller keeps `offset + len` within [`Source::len`].
    fn read(&self, offset: u64, len: usize) -> impl Future<Output = Result<Vec<u8>, String>>;

    /// [`Source::read`] into `buf`, replacing its contents: a source that can reuse the buffer's
    /// memory does (a file read 1 MB at a time then costs no new pages per megabyte).
    fn read_to(&self, offset: u64, len: usize, buf: &mut Vec<u8>) -> impl Future<Output = Result<(), String>> {
        async move {
            *buf = self.read(offset, len).await?;
            Ok(())
        }
    }
}

/// Bytes in memory (tests, fuzzing, a file the page already holds).
impl Source for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    async fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
        let start = usize::try_from(offset).map_err(|_| "offset past the end".to_string())?;
        self.get(start..start.saturating_add(len)).map(<[u8]>::to_vec).ok_or_else(|| "read past the end".to_string())
    }
}

/// A file on disk, read by seeking (the command line).
#[cfg(not(target_arch = "wasm32"))]
impl Source for std::fs::File {
    fn len(&self) -> u64 {
        self.metadata().map(|m| m.len()).unwrap_or(0)
    }

    async fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
        let mut buf = Vec::new();
        self.read_to(offset, len, &mut buf).await?;
        Ok(buf)
    }

    async fn read_to(&self, offset: u64, len: usize, buf: &mut Vec<u8>) -> Result<(), String> {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = self;
        f.seek(SeekFrom::Start(offset)).map_err(|e| e.to_string())?;
        buf.resize(len, 0);
        f.read_exact(buf).map_err(|e| e.to_string())
    }
}

/// Runs a future whose reads complete at once (a file, bytes in memory) to its end.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

//! The book's generated pages (docs/src/generated/) are what `qscope docs` writes from the code
//! today. `UPDATE_DOCS=1 cargo test --test cli docs` rewrites them.

use std::path::Path;
use std::process::Command;
use std::{env, fs};

#[test]
fn the_books_generated_pages_are_what_the_code_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = root.join("docs/src/generated");
    let fresh = env::temp_dir().join(format!("qscope-docs-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_qscope")).arg("docs").arg(&fresh).output().unwrap();
    assert!(out.status.success(), "qscope docs: {}", String::from_utf8_lossy(&out.stderr));
    let mut stale = Vec::new();
    let mut names: Vec<_> = fs::read_dir(&fresh).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert!(names.len() >= 3, "qscope docs wrote {names:?}");
    for name in &names {
        let text = fs::read_to_string(fresh.join(name)).unwrap();
        let path = committed.join(name);
        if fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            if env::var_os("UPDATE_DOCS").is_some() {
                fs::write(&path, &text).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    fs::remove_dir_all(&fresh).ok();
    assert!(stale.is_empty(), "stale generated pages (run `UPDATE_DOCS=1 cargo test --test cli docs`): {stale:?}");
}

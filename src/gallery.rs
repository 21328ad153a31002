//! `qscope gallery`: the quantizer reference — an index, one page and one SVG per quantizer,
//! and the notable figures.

use crate::args::{Command, Opt};

pub(crate) const USAGE: &[(&str, &str)] =
    &[("gallery DIR [--defaults] [--explorer URL]", "the quantizer reference as static pages")];

struct GalleryOptions {
    defaults: bool,
    explorer: String,
}

fn command() -> Command<GalleryOptions> {
    Command {
        name: "gallery",
        about: "\
gallery writes a browsable quantizer reference into DIR: index.html (the quantizers by library,
then a few notable configurations), and per quantizer a page (its formulas, parameters, levels,
code in every framework, links that open it live in the explorer or embed it) and its SVG
figure, drawn in a configuration where its character shows (inference mode where training is
refused); style.css is the pages' one style sheet. Static files only: copy DIR anywhere."
            .into(),
        options: vec![
            Opt::switch(
                "--defaults",
                "draw every quantizer at its library defaults over [-2, 2] instead",
                |o: &mut GalleryOptions| o.defaults = true,
            ),
            Opt::value(
                "--explorer",
                "URL",
                format!(
                    "the explorer the links open, e.g. https://your.host/qscope/ (default {})",
                    qscope_explore::reference::DEFAULT_EXPLORER
                ),
                |o: &mut GalleryOptions, v| {
                    if v.is_empty() || v.contains('#') || v.contains(char::is_whitespace) {
                        return Err(format!("--explorer {v}: expected the explorer's address, without a #"));
                    }
                    o.explorer = v.to_string();
                    Ok(())
                },
            ),
        ],
        max_free: Some(1),
        extra: "gallery takes one directory".into(),
    }
}

pub(crate) fn help() -> String {
    command().help()
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    use qscope_explore::reference::{DEFAULT_EXPLORER, Options, files};
    use qscope_plot::export::software;
    let mut o = GalleryOptions { defaults: false, explorer: DEFAULT_EXPLORER.to_string() };
    let free = command().parse(args, &mut o)?;
    let dir = free.first().ok_or("gallery needs a directory, e.g. qscope gallery target/gallery")?;
    let dir = std::path::PathBuf::from(dir);
    let files = files(&Options { explorer: o.explorer, defaults: o.defaults, software: software() })?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let mut bytes = 0;
    for (name, text) in &files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        bytes += text.len();
    }
    let figures = files.iter().filter(|(n, _)| n.ends_with(".svg")).count();
    let pages = files.iter().filter(|(n, _)| n.ends_with(".html")).count() - 1;
    println!("{pages} pages, {figures} figures, index.html and style.css in {} ({bytes} bytes)", dir.display());
    Ok(())
}

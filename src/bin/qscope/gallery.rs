//! `qscope gallery`: one SVG per quantizer and an index page.

use crate::args::Command;

pub(crate) const USAGE: &[(&str, &str)] = &[("gallery DIR", "one SVG per quantizer, and an index.html")];

fn command() -> Command<()> {
    Command {
        name: "gallery",
        about: "\
gallery writes one SVG figure per quantizer of the catalogue at its defaults (inference mode
where training is refused), then a few notable configurations, and DIR/index.html showing them.",
        options: Vec::new(),
        max_free: Some(1),
        extra: "gallery takes one directory",
    }
}

pub(crate) fn help() -> String {
    command().help()
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    use qscope::explore::figure::from_specs;
    use qscope::explore::state::Mode;
    use qscope::plot::export::software;
    use qscope::plot::gallery::{X, index_html, items};
    let free = command().parse(args, &mut ())?;
    let dir = free.first().ok_or("gallery needs a directory, e.g. qscope gallery target/gallery")?;
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let items = items()?;
    for it in &items {
        let figure = from_specs(&it.specs, X, Mode::from_training(!it.infer), 0);
        let svg = figure.and_then(|f| f.svg()).map_err(|e| format!("{}: {e}", it.file))?;
        let path = dir.join(&it.file);
        std::fs::write(&path, svg).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    let index = dir.join("index.html");
    std::fs::write(&index, index_html(&items, &software())).map_err(|e| format!("writing {}: {e}", index.display()))?;
    println!("{} figures and index.html in {}", items.len(), dir.display());
    Ok(())
}

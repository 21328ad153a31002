//! The trainer's CSV reader: any bytes as a file, with the last column as the label and again
//! with a label named by the first bytes (the first byte's low bits give the name's length, the
//! bytes after it the name, the rest the file). Never a panic; a message starts with the file's
//! name and stays short; a table that reads is written back as a CSV (every name and label
//! quoted, values as float32's shortest text, the label last) that reads as the same table.
#![no_main]

use libfuzzer_sys::fuzz_target;
use qscope_explore::train::csv::parse_csv;
use qscope_nn::table::Table;

/// `text` as a quoted CSV cell.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

fn check(csv: &[u8], label: Option<&str>) {
    match parse_csv("fuzz.csv", csv, label) {
        Err(e) => {
            assert!(e.starts_with("fuzz.csv: "), "a message without the file's name: {e:?}");
            assert!(e.len() < 2000, "a message of {} bytes", e.len());
        }
        Ok(t) => {
            assert!(t.classes.windows(2).all(|w| w[0] != w[1]), "a class twice: {:?}", t.classes);
            let mut label = String::from("label");
            while t.features.contains(&label) {
                label.push('_');
            }
            let header: Vec<String> = t.features.iter().chain([&label]).map(|n| quoted(n)).collect();
            let mut text = vec![header.join(",")];
            for r in 0..t.rows() {
                let values: Vec<String> = t.row(r).iter().map(|v| format!("{v}")).collect();
                text.push(format!("{},{}", values.join(","), quoted(&t.classes[usize::from(t.y[r])])));
            }
            let again: Table = parse_csv("fuzz.csv", text.join("\n").as_bytes(), None)
                .unwrap_or_else(|e| panic!("a table that read is written back as a CSV that does not: {e}"));
            assert_eq!(again, t, "the table written back reads as another");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data, None);
    if let Some((&n, rest)) = data.split_first() {
        let (label, csv) = rest.split_at(usize::from(n % 16).min(rest.len()));
        if let Ok(label) = std::str::from_utf8(label) {
            check(csv, Some(label));
        }
    }
});

//! The CSV reader's specification: what it reads, and each problem's message.
use super::*;

#[test]
fn the_columns_are_the_headers_names_in_order() {
    assert_eq!(columns(b"\xEF\xBB\xBFa, \"b,c\" ,label\r\n1,2,x").unwrap(), ["a", "b,c", "label"]);
    assert_eq!(columns(b"").unwrap_err(), "the CSV: the file is empty");
}
use proptest::prelude::*;

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// `rows` rows of two features (row index, its half) and the label `labels[r % len]`.
fn csv(header: &str, rows: usize, labels: &[&str]) -> String {
    let body: String = (0..rows).map(|r| format!("{r},{}.5,{}\n", r / 2, labels[r % labels.len()])).collect();
    format!("{header}\n{body}")
}

/// Reading `text` as data.csv fails with `want`.
#[track_caller]
fn fails(text: impl AsRef<[u8]>, want: &str) {
    assert_eq!(parse_csv("data.csv", text.as_ref(), None).unwrap_err(), format!("data.csv: {want}"));
}

#[test]
fn an_iris_like_csv_reads_into_values_sorted_classes_and_indices() {
    let text = "sepal_len,sepal_wid,species\n5.1,3.5,setosa\n7.0, 3.2 ,versicolor\n6.3,3.3,virginica\n".to_string()
        + &"4.9,3.0,setosa\n6.4,3.2,versicolor\n5.8,2.7,virginica\n".repeat(3);
    let t = parse_csv("iris.csv", text.as_bytes(), None).unwrap();
    assert_eq!((t.name.as_str(), t.features.clone()), ("iris.csv", strings(&["sepal_len", "sepal_wid"])));
    assert_eq!(t.classes, strings(&["setosa", "versicolor", "virginica"]));
    assert_eq!((t.rows(), t.row(0), t.row(1)), (12, &[5.1, 3.5][..], &[7.0, 3.2][..]));
    assert_eq!(t.y[..6], [0, 1, 2, 0, 1, 2]);
}

#[test]
fn a_float32_written_as_its_shortest_text_reads_back_as_itself() {
    // Read as a float64 then rounded to float32, this text lands one float32 away.
    let v = f32::from_bits(0x15ae_43fd);
    let text = csv("a,b,c", 12, &["n", "y"]).replacen("0,0.5", &format!("{v},0.5"), 1);
    assert_eq!(parse_csv("a.csv", text.as_bytes(), None).unwrap().row(0)[0].to_bits(), v.to_bits());
    assert_ne!(format!("{v}").parse::<f64>().unwrap() as f32, v);
}

#[test]
fn integer_labels_sort_by_value_and_string_labels_by_text() {
    let t = parse_csv("a.csv", csv("a,b,c", 12, &["10", "2", "-1"]).as_bytes(), None).unwrap();
    assert_eq!((t.classes.clone(), &t.y[..3]), (strings(&["-1", "2", "10"]), &[2, 1, 0][..]));
    let t = parse_csv("a.csv", csv("a,b,c", 12, &["b10", "b2"]).as_bytes(), None).unwrap();
    assert_eq!((t.classes.clone(), &t.y[..2]), (strings(&["b10", "b2"]), &[0, 1][..]));
}

#[test]
fn a_label_column_chosen_by_name_may_be_in_the_middle() {
    let t = parse_csv("a.csv", csv("a, b ,c", 12, &["4", "5"]).as_bytes(), Some("b")).unwrap();
    assert_eq!(t.features, strings(&["a", "c"]));
    assert_eq!(t.classes, strings(&["0.5", "1.5", "2.5", "3.5", "4.5", "5.5"]));
    assert_eq!((t.row(3), &t.y[..4]), (&[3.0, 5.0][..], &[0, 0, 1, 1][..]));
}

#[test]
fn quoted_cells_hold_delimiters_newlines_and_doubled_quotes() {
    let text = "\"x, one\",\"the \"\"y\"\"\",label\n".to_string()
        + &(0..10).map(|r| format!("\"{r}\", {r} ,\"class\n{}, \"\"q\"\"\"\n", r % 2)).collect::<String>();
    let t = parse_csv("q.csv", text.as_bytes(), None).unwrap();
    assert_eq!((t.features.clone(), t.rows()), (strings(&["x, one", "the \"y\""]), 10));
    assert_eq!(t.classes, strings(&["class\n0, \"q\"", "class\n1, \"q\""]));
    // Lines count the newlines inside quotes: row 3 starts on line 6.
    fails(text.replacen("\"2\", 2 ,", "\"2\", x ,", 1), "line 6, column 'the \"y\"': 'x' is not a number");
}

#[test]
fn a_byte_order_mark_and_crlf_or_cr_line_ends_are_read() {
    let text = csv("a,b,c", 12, &["n", "y"]);
    let plain = parse_csv("a.csv", text.as_bytes(), None).unwrap();
    let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
    assert_eq!(parse_csv("a.csv", crlf.as_bytes(), None).unwrap(), plain);
    assert_eq!(parse_csv("a.csv", text.replace('\n', "\r").as_bytes(), None).unwrap(), plain);
    fails(crlf.replacen("3,1.5", "3,z", 1), "line 5, column 'b': 'z' is not a number");
}

#[test]
fn semicolons_or_tabs_split_cells_when_the_header_has_no_comma() {
    let text = csv("a,b,c", 12, &["n", "y"]);
    let plain = parse_csv("a.csv", text.as_bytes(), None).unwrap();
    assert_eq!(parse_csv("a.csv", text.replace(',', ";").as_bytes(), None).unwrap(), plain);
    assert_eq!(parse_csv("a.csv", text.replace(',', "\t").as_bytes(), None).unwrap(), plain);
    // A comma inside a quoted name does not count.
    let t = parse_csv("a.csv", text.replace(',', ";").replacen("a;b", "\"a,1\";b", 1).as_bytes(), None).unwrap();
    assert_eq!(t.features, strings(&["a,1", "b"]));
}

#[test]
fn blank_lines_are_skipped_and_a_last_newline_is_optional() {
    let text = csv("a,b,c", 12, &["n", "y"]);
    let plain = parse_csv("a.csv", text.as_bytes(), None).unwrap();
    let spaced = format!("\n  \n{}", text.replacen("\n", "\n\n \n", 3)) + "\n\n  \n";
    assert_eq!(parse_csv("a.csv", spaced.as_bytes(), None).unwrap(), plain);
    assert_eq!(parse_csv("a.csv", text.trim_end().as_bytes(), None).unwrap(), plain);
    // Lines are still the file's: the header is on line 3.
    fails(spaced.replacen("a,b", "a,a", 1), "line 3, column 2: 'a' is column 1's name too");
}

#[test]
fn each_bad_cell_is_named_by_line_column_and_text() {
    let text = csv("x,petal_len,y", 12, &["n", "y"]);
    let with = |cell: &str, want: &str| fails(text.replacen("5,2.5", &format!("5,{cell}"), 1), want);
    with("abc", "line 7, column 'petal_len': 'abc' is not a number");
    with("1e999", "line 7, column 'petal_len': '1e999' is not a finite float32 number");
    with("1e39", "line 7, column 'petal_len': '1e39' is not a finite float32 number");
    with("NaN", "line 7, column 'petal_len': 'NaN' is not a finite float32 number");
    with("-inf", "line 7, column 'petal_len': '-inf' is not a finite float32 number");
    with(" ", "line 7, column 'petal_len' is empty");
    fails(text.replacen(",n\n", ",\n", 1), "line 2, column 'y' is empty");
    let long = "z".repeat(100);
    with(&long, &format!("line 7, column 'petal_len': '{}…' is not a number", &long[..60]));
}

#[test]
fn a_ragged_row_or_a_broken_quote_is_named_by_line() {
    let text = csv("a,b,c", 12, &["n", "y"]);
    fails(text.replacen("10,5.5,n", "10,5.5,n,1", 1), "line 12 has 4 cells; the header has 3");
    fails(text.replacen("10,5.5,n", "10,5.5", 1), "line 12 has 2 cells; the header has 3");
    fails(text.replacen(",1.5", ",\"1.5", 1), "line 4, column 'b' opens a quote that is never closed");
    fails(text.replacen(",1.5", ",\"1\".5", 1), "line 4, column 'b' has text after its closing quote");
}

#[test]
fn bytes_that_are_not_utf8_are_named_by_line() {
    let mut bytes = csv("a,b,c", 12, &["n", "y"]).into_bytes();
    let at = bytes.windows(3).position(|w| w == b"2,1").unwrap();
    bytes[at + 2] = 0xFF;
    fails(&bytes, "line 4 is not UTF-8 text");
    fails(b"\xFF\xFEa\0", "the file is UTF-16 text; save it as UTF-8");
}

#[test]
fn an_empty_file_a_lone_header_and_bad_headers_are_refused() {
    fails("", "the file is empty");
    fails("\u{feff}\r\n  \n", "the file is empty");
    fails("a,b\n\n", "only a header (line 1), no rows");
    fails("a\n1\n", "the header has one column, 'a'; a table needs features and a label");
    fails("a,,c\n", "line 1, column 2 has no name");
    fails("a,b, a\n", "line 1, column 3: 'a' is column 1's name too");
    fails(csv("a,b,c", 3, &["n", "y"]), "3 rows; a table needs at least 10");
}

#[test]
fn a_missing_label_column_is_named_with_the_columns() {
    let header: Vec<String> = (0..12).map(|k| format!("c{k}")).collect();
    let got = parse_csv("d.csv", format!("{}\n", header.join(",")).as_bytes(), Some("species")).unwrap_err();
    let listed = "'c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9'";
    assert_eq!(got, format!("d.csv: no column 'species' for the label; the columns are {listed} and 2 more"));
}

#[test]
fn one_class_or_more_than_ten_are_refused_with_the_count() {
    fails(csv("a,b,kind", 12, &["x"]), "every label in column 'kind' is 'x'; a table needs 2 classes or more");
    let many: Vec<String> = (0..11).map(|k| k.to_string()).collect();
    let many: Vec<&str> = many.iter().map(|s| s.as_str()).collect();
    fails(csv("a,b,kind", 30, &many), "column 'kind' has 11 different labels; a table has at most 10 classes");
}

#[test]
fn a_header_wider_than_the_limit_is_refused_before_any_row() {
    fails(
        format!("{}\n1,2\n", ["c"; 66].join(",")),
        "the header has 66 columns; the most is 65 (64 features and the label)",
    );
    let wide = ",".repeat(999_999) + "\n" + &"x".repeat(1000);
    let start = std::time::Instant::now();
    fails(&wide, "the header has 1000000 columns; the most is 65 (64 features and the label)");
    assert!(start.elapsed().as_secs_f64() < 2.0, "a wide header took {:?}", start.elapsed());
}

#[test]
fn the_row_past_the_limit_is_refused_without_reading_on() {
    let mut text = "a,b\n".to_string() + &"1,x\n2,y\n".repeat(MAX_ROWS / 2 + 1);
    text += "not, a, row, at, all\n\"never closed";
    fails(&text, "line 100002 is row 100001; a table has at most 100000 rows");
}

#[test]
fn a_file_past_the_byte_limit_is_refused_with_its_size() {
    let big = vec![b'1'; MAX_BYTES + (1 << 19)];
    fails(&big, "256.5 MiB; a CSV may have at most 256 MiB");
}

/// A cell as a CSV writer might write it: quoted when it has to be, else quoted or not.
fn cell(text: &str, quote_anyway: bool) -> String {
    let must = text.contains([',', ';', '\t', '"', '\n', '\r']) || text.trim() != text;
    if must || quote_anyway { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}

proptest! {
    #[test]
    fn a_table_written_as_csv_reads_back_as_itself(
        dims in 1usize..5,
        rows in 10usize..30,
        label_at in 0usize..5,
        numeric in any::<bool>(),
        names in prop::collection::hash_set("[a-z][a-z ,;\"\t\n]{0,6}[a-z]", 6),
        values in prop::collection::vec(any::<f32>().prop_filter("finite", |v| v.is_finite()), 150),
        picks in prop::collection::vec(0usize..4, 30),
        quoting in prop::collection::vec(any::<bool>(), 200),
        (delimiter, newline, bom, last_newline) in (0usize..3, 0usize..3, any::<bool>(), any::<bool>()),
    ) {
        let names: Vec<String> = names.into_iter().collect();
        let (features, column) = (names[..dims].to_vec(), names[dims].clone());
        let pool: Vec<String> = if numeric { ["3", "10", "-2", "0"].map(String::from).to_vec() }
            else { ["b c", "a\"q\"", "x,y", "a"].map(String::from).to_vec() };
        let mut classes: Vec<String> = pool.clone();
        if numeric { classes.sort_by_key(|c| c.parse::<i64>().unwrap()) } else { classes.sort() }
        // Every class has a row: the first four rows take one each.
        let labels: Vec<&String> = (0..rows).map(|r| &pool[if r < 4 { r } else { picks[r] }]).collect();
        let x = values[..rows * dims].to_vec();
        let y: Vec<u8> = labels.iter().map(|l| classes.iter().position(|c| c == *l).unwrap() as u8).collect();
        let want = Table::new("p.csv", features.clone(), classes, x.clone(), y).unwrap();

        let (d, nl) = ([",", ";", "\t"][delimiter], ["\n", "\r\n", "\r"][newline]);
        let at = label_at.min(dims);
        let mut q = quoting.iter().cycle();
        let mut line = |cells: Vec<String>, label: String| {
            let mut cells: Vec<String> = cells.iter().map(|c| cell(c, *q.next().unwrap())).collect();
            cells.insert(at, cell(&label, *q.next().unwrap()));
            cells.join(d)
        };
        let mut lines = vec![line(features, column.clone())];
        for r in 0..rows {
            let row = x[r * dims..(r + 1) * dims].iter().map(|v| format!("{v}")).collect();
            lines.push(line(row, labels[r].clone()));
        }
        let text = format!("{}{}{}", if bom { "\u{feff}" } else { "" }, lines.join(nl), if last_newline { nl } else { "" });
        let got = parse_csv("p.csv", text.as_bytes(), Some(&column)).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(got, want);
    }
}

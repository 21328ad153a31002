//! Reading the XML qscope writes (SVG figures, the reference's pages), as much as the tests
//! need: the elements in order (every element checked closed in order, so the file is
//! well-formed), their attributes, the classes of the `<style>` block (and the dark scheme's),
//! and path data as absolute points.
#![allow(dead_code)]

use std::collections::HashMap;

/// One start tag: its name, attributes and (for text) its content.
#[derive(Clone, Debug, PartialEq)]
pub struct El {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub text: String,
}

impl El {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// A parsed document.
#[derive(Debug, Default)]
pub struct Svg {
    pub elements: Vec<El>,
    /// Class name → CSS declarations (property, value).
    pub classes: HashMap<String, Vec<(String, String)>>,
    /// The same under `@media (prefers-color-scheme:dark)`.
    pub dark: HashMap<String, Vec<(String, String)>>,
    pub css: String,
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&")
}

/// Parses `xml`, panicking unless every element is closed in order and every attribute quoted.
pub fn parse(xml: &str) -> Svg {
    let mut svg = Svg::default();
    let mut stack: Vec<usize> = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find('<') {
        if let Some(&top) = stack.last() {
            svg.elements[top].text.push_str(&unescape(&rest[..i]));
        } else {
            assert!(rest[..i].trim().is_empty(), "text outside the root: {:?}", &rest[..i]);
        }
        let end = rest[i..].find('>').expect("an unclosed tag") + i;
        let tag = &rest[i + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') || tag.starts_with('?') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(svg.elements[open].name, name.trim(), "</{name}> closes the wrong element");
            continue;
        }
        let empty = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
        let mut attrs = Vec::new();
        let mut a = body[name_end..].trim();
        while !a.is_empty() {
            let eq = a.find("=\"").unwrap_or_else(|| panic!("an unquoted attribute in <{body}>"));
            let key = a[..eq].trim().to_string();
            let close = a[eq + 2..].find('"').expect("a closing quote") + eq + 2;
            assert!(!key.contains(char::is_whitespace) && !key.is_empty(), "attribute name {key:?}");
            assert!(!attrs.iter().any(|(k, _): &(String, String)| *k == key), "attribute {key} twice");
            attrs.push((key, unescape(&a[eq + 2..close])));
            a = a[close + 1..].trim_start();
        }
        svg.elements.push(El { name: body[..name_end].to_string(), attrs, text: String::new() });
        if !empty {
            stack.push(svg.elements.len() - 1);
        }
    }
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    assert!(rest.trim().is_empty(), "text after the root");
    if let Some(style) = svg.elements.iter().find(|e| e.name == "style") {
        svg.css = style.text.clone();
    }
    let (light, dark) = match svg.css.split_once("@media") {
        Some((l, d)) => (l.to_string(), d.to_string()),
        None => (svg.css.clone(), String::new()),
    };
    svg.classes = rules(&light);
    svg.dark = rules(&dark);
    svg
}

/// `.name{prop:value;…}` rules (whatever comes before the class selector is the scope).
fn rules(css: &str) -> HashMap<String, Vec<(String, String)>> {
    let mut out = HashMap::new();
    for rule in css.split('}') {
        let Some((selector, body)) = rule.rsplit_once('{') else { continue };
        let selector = selector.trim().rsplit(' ').next().unwrap_or("");
        let Some(class) = selector.strip_prefix('.') else { continue };
        let decls = body
            .split(';')
            .filter_map(|d| d.split_once(':'))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect();
        out.insert(class.to_string(), decls);
    }
    out
}

impl Svg {
    /// The value of CSS property `prop` for `el` (its class's), or its attribute of that name.
    pub fn style<'a>(&'a self, el: &'a El, prop: &str) -> Option<&'a str> {
        let class = el.attr("class").and_then(|c| self.classes.get(c));
        class.and_then(|d| d.iter().find(|(k, _)| k == prop).map(|(_, v)| v.as_str())).or_else(|| el.attr(prop))
    }

    /// The elements named `name` whose styles hold every `(property, value)` of `want`
    /// (colours compared without case).
    pub fn with(&self, name: &str, want: &[(&str, &str)]) -> Vec<&El> {
        self.elements
            .iter()
            .filter(|e| e.name == name)
            .filter(|e| want.iter().all(|(k, v)| self.style(e, k).is_some_and(|s| s.eq_ignore_ascii_case(v))))
            .collect()
    }
}

/// The subpaths of path data (`M m L l H h V v Z z`, as qscope writes it) as absolute points.
pub fn subpaths(d: &str) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut cur = String::new();
    for c in d.chars() {
        if c.is_ascii_alphabetic() || c == ' ' || c == ',' || (c == '-' && !cur.is_empty()) {
            if !cur.is_empty() {
                tokens.push(std::mem::take(&mut cur));
            }
            if c.is_ascii_alphabetic() {
                tokens.push(c.to_string());
            } else if c == '-' {
                cur.push(c);
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        tokens.push(cur);
    }
    let (mut at, mut start, mut cmd) = ((0.0, 0.0), (0.0, 0.0), 'M');
    let mut i = 0;
    let num = |i: &mut usize| -> f64 {
        let v = tokens[*i].parse().unwrap_or_else(|_| panic!("a number, not {:?} in {d}", tokens[*i]));
        *i += 1;
        v
    };
    while i < tokens.len() {
        if tokens[i].chars().all(|c| c.is_ascii_alphabetic()) {
            cmd = tokens[i].chars().next().unwrap();
            i += 1;
            if cmd == 'z' || cmd == 'Z' {
                at = start;
                continue;
            }
        }
        match cmd {
            'M' | 'm' => {
                let (x, y) = (num(&mut i), num(&mut i));
                at = if cmd == 'M' { (x, y) } else { (at.0 + x, at.1 + y) };
                start = at;
                out.push(vec![at]);
                cmd = if cmd == 'M' { 'L' } else { 'l' };
                continue;
            }
            'L' => at = (num(&mut i), num(&mut i)),
            'l' => {
                let (x, y) = (num(&mut i), num(&mut i));
                at = (at.0 + x, at.1 + y);
            }
            'H' => at.0 = num(&mut i),
            'h' => at.0 += num(&mut i),
            'V' => at.1 = num(&mut i),
            'v' => at.1 += num(&mut i),
            other => panic!("path command {other} in {d}"),
        }
        out.last_mut().expect("a moveto first").push(at);
    }
    out
}

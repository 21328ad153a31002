//! Links for phones: a link as a QR code ([`Qr`]: the handout's code per step, the presenter's
//! "follow on your phone"), and what the presenter's code carries ([`Follow`]: the page as it is
//! on the projector, without presenter mode, and whether a phone can reach it at all).
//!
//! The `qrcode` crate encodes; the drawing (one SVG path of dark modules) is ours, so no image
//! crate comes in.

use crate::page::Page;

/// Quiet zone around a code, in modules (the standard's four).
pub const QUIET: usize = 4;

/// A QR code's modules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qr {
    width: usize,
    dark: Vec<bool>,
}

impl Qr {
    /// `text` at error correction M (a smudged print or a dim projector still reads), or L when
    /// M cannot hold it; `None` when no QR code can (2,953 bytes at most).
    pub fn encode(text: &str) -> Option<Qr> {
        use qrcode::{Color, EcLevel, QrCode};
        let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M)
            .or_else(|_| QrCode::with_error_correction_level(text.as_bytes(), EcLevel::L))
            .ok()?;
        let dark = code.to_colors().iter().map(|c| *c == Color::Dark).collect();
        Some(Qr { width: code.width(), dark })
    }

    /// Modules across the code itself (17 + 4 × its version).
    pub fn width(&self) -> usize {
        self.width
    }

    /// Modules across the code and its quiet zone.
    pub fn side(&self) -> usize {
        self.width + 2 * QUIET
    }

    /// Whether the module at column `x`, row `y` of the code (not counting the quiet zone) is dark.
    pub fn is_dark(&self, x: usize, y: usize) -> bool {
        x < self.width && y < self.width && self.dark[y * self.width + x]
    }

    /// SVG path data of the dark modules in a [`side`](Qr::side)-wide box (the quiet zone
    /// included): one rectangle per horizontal run of dark modules.
    pub fn path(&self) -> String {
        use std::fmt::Write;
        let mut d = String::new();
        for y in 0..self.width {
            let mut x = 0;
            while x < self.width {
                if !self.is_dark(x, y) {
                    x += 1;
                    continue;
                }
                let run = (x..self.width).take_while(|&i| self.is_dark(i, y)).count();
                let _ = write!(d, "M{} {}h{run}v1h-{run}z", x + QUIET, y + QUIET);
                x += run;
            }
        }
        d
    }

    /// The code as an inline SVG, `px` wide: black modules on white, crisp edges.
    pub fn svg(&self, px: u32) -> String {
        let side = self.side();
        format!(
            "<svg class=\"qr\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {side} {side}\" width=\"{px}\" \
             height=\"{px}\" shape-rendering=\"crispEdges\" role=\"img\" aria-label=\"QR code of the link\">\
             <rect width=\"{side}\" height=\"{side}\" fill=\"#fff\"/><path fill=\"#000\" d=\"{}\"/></svg>",
            self.path()
        )
    }
}

/// What the presenter's "follow on your phone" shows for the page at `href`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Follow {
    /// The page as it is, for a phone: the same lesson, step and view, not in presenter mode
    /// (nor embedded).
    pub url: String,
    /// The code of `url`, unless it is too long for one.
    pub qr: Option<Qr>,
    /// Why a phone may not open it: the address is this computer's own, or the link is too long.
    pub problem: Option<String>,
}

impl Follow {
    /// The phone's link to the page at `href` (the page's whole address, hash included).
    pub fn of(href: &str) -> Follow {
        let (address, hash) = href.split_once('#').unwrap_or((href, ""));
        let (page, view, _) = Page::split(hash);
        let hash = Page { present: false, embed: false, ..page }.compose(&view);
        let url = if hash == "#" { address.to_string() } else { format!("{address}{hash}") };
        let qr = Qr::encode(&url);
        let problem = match (local_host(address), &qr) {
            (Some(host), _) => Some(format!(
                "This address ({host}) is this computer's own: phones cannot open it. For a class, serve the \
                 site on the room's network (scripts/dev serve --lan) and open it here at the address that \
                 prints, or publish it on a static host (the Guide's \"Teaching\" page)."
            )),
            (None, None) => Some(format!(
                "This link is {} characters, too long for a QR code (2,953 at most): send it to the class as \
                 text instead.",
                url.len()
            )),
            (None, Some(_)) => None,
        };
        Follow { url, qr, problem }
    }
}

/// The host of `address` when only this computer can reach it (loopback, `localhost`, an
/// unspecified address, a `file:` page).
fn local_host(address: &str) -> Option<String> {
    let (scheme, rest) = address.split_once("://")?;
    if scheme.eq_ignore_ascii_case("file") {
        return Some("a file on this computer".into());
    }
    let authority = rest.split(['/', '?']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    }
    .to_ascii_lowercase();
    let local = host == "localhost"
        || host.ends_with(".localhost")
        || host.starts_with("127.")
        || host == "0.0.0.0"
        || host == "::1"
        || host == "::";
    local.then_some(host)
}

#[cfg(test)]
mod tests {
    use super::{Follow, QUIET, Qr};

    #[test]
    fn a_code_has_its_three_finder_patterns_in_the_corners() {
        let qr = Qr::encode("https://example.org/qscope/#lesson=ste&step=4").unwrap();
        let w = qr.width();
        assert_eq!((w - 17) % 4, 0, "a QR code is 17 + 4·version modules wide: {w}");
        for (x0, y0) in [(0, 0), (w - 7, 0), (0, w - 7)] {
            for (x, y) in (0..7).flat_map(|y| (0..7).map(move |x| (x, y))) {
                let ring = x == 0 || y == 0 || x == 6 || y == 6;
                let core = (2..5).contains(&x) && (2..5).contains(&y);
                assert_eq!(qr.is_dark(x0 + x, y0 + y), ring || core, "finder at ({x0}, {y0}), module ({x}, {y})");
            }
        }
    }

    #[test]
    fn the_path_draws_exactly_the_dark_modules_inside_the_quiet_zone() {
        let qr = Qr::encode("https://example.org/#q=quantized_bits(4,0,1)").unwrap();
        let mut drawn = vec![false; qr.side() * qr.side()];
        for rect in qr.path().split('M').filter(|r| !r.is_empty()) {
            let (xy, run) = rect.split_once('h').unwrap();
            let (x, y) = xy.split_once(' ').unwrap();
            let (x, y): (usize, usize) = (x.parse().unwrap(), y.parse().unwrap());
            let run: usize = run.split('v').next().unwrap().parse().unwrap();
            for i in x..x + run {
                assert!(!drawn[y * qr.side() + i], "module ({i}, {y}) drawn twice");
                drawn[y * qr.side() + i] = true;
            }
        }
        for y in 0..qr.side() {
            for x in 0..qr.side() {
                let inside = (QUIET..QUIET + qr.width()).contains(&x) && (QUIET..QUIET + qr.width()).contains(&y);
                let dark = inside && qr.is_dark(x - QUIET, y - QUIET);
                assert_eq!(drawn[y * qr.side() + x], dark, "module ({x}, {y}) of the box");
            }
        }
    }

    #[test]
    fn text_too_long_for_any_code_gets_none_and_a_long_one_falls_back_to_level_l() {
        assert!(Qr::encode(&"x".repeat(3000)).is_none());
        // 2,400 bytes: over level M's 2,331, within L's 2,953.
        assert!(Qr::encode(&"x".repeat(2400)).is_some());
    }

    #[test]
    fn a_phone_follows_the_page_without_presenter_mode() {
        let f = Follow::of("https://qscope.example/app/#lesson=ste&step=3&present=1&q=ste_sign()");
        assert_eq!(f.url, "https://qscope.example/app/#lesson=ste&step=3&q=ste_sign()");
        assert!(f.qr.is_some() && f.problem.is_none(), "{f:?}");
    }

    #[test]
    fn a_page_without_a_view_hash_gives_its_bare_address() {
        assert_eq!(Follow::of("https://qscope.example/#present=1").url, "https://qscope.example/");
        assert_eq!(Follow::of("https://qscope.example/").url, "https://qscope.example/");
    }

    #[test]
    fn a_loopback_address_is_named_as_unreachable_from_phones() {
        for href in [
            "http://127.0.0.1:8080/#present=1",
            "http://localhost:8080/",
            "http://[::1]:8080/#lesson=binary",
            "http://app.localhost/",
            "file:///home/me/dist/index.html",
        ] {
            let problem = Follow::of(href).problem.unwrap_or_default();
            assert!(problem.contains("phones cannot open it") && problem.contains("--lan"), "{href}: {problem}");
        }
        for href in ["http://192.168.1.20:8080/#present=1", "https://user@127-0-0-1.example/", "http://[fe80::1]/"] {
            assert_eq!(Follow::of(href).problem, None, "{href}");
        }
    }

    #[test]
    fn a_link_too_long_for_a_code_says_so_with_its_length() {
        let href = format!("https://qscope.example/#lesson=~{}", "a".repeat(4000));
        let f = Follow::of(&href);
        assert!(f.qr.is_none());
        let problem = f.problem.unwrap();
        assert!(problem.contains(&format!("{} characters", f.url.len())), "{problem}");
    }
}

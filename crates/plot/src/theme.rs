//! The colours every figure and canvas takes, one [`Theme`] per look (light, dark, high
//! contrast for a projector): the curves' Okabe–Ito palette, what surrounds the curves, and
//! the Train view's own colours ([`TrainColours`]: networks, the diverging heatmap, signs of
//! weights, layers). The app picks one theme and draws every canvas with it; nothing else
//! names a colour.

use plotters::style::RGBColor;

/// The Okabe–Ito categorical colours (colour-blind safe), in the order curves take them.
pub const OKABE_ITO: [RGBColor; 6] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
];

/// The same colours for dark backgrounds: Okabe–Ito's blue is too dark to read on them, so the
/// first curve takes a lighter blue (still well apart from the sky blue of the sixth).
pub const OKABE_ITO_ON_DARK: [RGBColor; 6] =
    [RGBColor(0x3D, 0x9A, 0xDB), OKABE_ITO[1], OKABE_ITO[2], OKABE_ITO[3], OKABE_ITO[4], OKABE_ITO[5]];

/// Colours of everything that is not a curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theme {
    pub background: RGBColor,
    pub text: RGBColor,
    pub muted: RGBColor,
    pub axis: RGBColor,
    pub grid: RGBColor,
    /// Bars behind a curve's colour (the sample tensor's histogram before quantization).
    pub bars: RGBColor,
    pub palette: [RGBColor; 6],
    /// The Train view's canvases.
    pub train: TrainColours,
}

impl Theme {
    pub const LIGHT: Theme = Theme {
        background: RGBColor(0xFF, 0xFF, 0xFF),
        text: RGBColor(0x1F, 0x23, 0x28),
        muted: RGBColor(0x5C, 0x63, 0x6E),
        axis: RGBColor(0x8C, 0x93, 0x9D),
        grid: RGBColor(0xE6, 0xE8, 0xEB),
        bars: RGBColor(0xC4, 0xCA, 0xD1),
        palette: OKABE_ITO,
        train: TrainColours::LIGHT,
    };
    pub const DARK: Theme = Theme {
        background: RGBColor(0x1A, 0x1D, 0x22),
        text: RGBColor(0xE6, 0xE8, 0xEB),
        muted: RGBColor(0xA4, 0xAB, 0xB5),
        axis: RGBColor(0x6E, 0x76, 0x81),
        grid: RGBColor(0x2E, 0x33, 0x3A),
        bars: RGBColor(0x5A, 0x62, 0x6D),
        palette: OKABE_ITO_ON_DARK,
        train: TrainColours::DARK,
    };

    /// For a projector (presenter mode): black on white, darker axes and grid, the same
    /// Okabe–Ito order.
    pub const HIGH_CONTRAST: Theme = Theme {
        background: RGBColor(0xFF, 0xFF, 0xFF),
        text: RGBColor(0x00, 0x00, 0x00),
        muted: RGBColor(0x1F, 0x23, 0x28),
        axis: RGBColor(0x3A, 0x3F, 0x45),
        grid: RGBColor(0xC4, 0xC8, 0xCE),
        bars: RGBColor(0xC4, 0xCA, 0xD1),
        palette: OKABE_ITO,
        train: TrainColours::LIGHT,
    };

    /// Every colour a figure takes from the theme, by role (background, text, muted, axis,
    /// grid, bars, the palette): the same role has the same place in every theme, so a figure
    /// drawn in one theme can be recoloured in another (the SVG that follows the reader's
    /// colour scheme).
    pub fn slots(&self) -> [RGBColor; 12] {
        let p = &self.palette;
        [self.background, self.text, self.muted, self.axis, self.grid, self.bars, p[0], p[1], p[2], p[3], p[4], p[5]]
    }

    /// The colour of the `i`-th curve.
    pub fn curve(&self, i: usize) -> RGBColor {
        self.palette[i % self.palette.len()]
    }
}

/// The Train view's colours (its canvases are drawn by hand, not by plotters): Okabe–Ito for
/// everything that means something, in every theme; greys that follow the background.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainColours {
    /// Each network's swatch and loss/accuracy lines: quantized, float twin, STE twin.
    pub nets: [RGBColor; 3],
    /// The diverging pair: a boundary's score towards +1 and −1, a weight's sign (> 0, < 0).
    pub positive: RGBColor,
    pub negative: RGBColor,
    /// A boundary where the score is 0: the heatmap shades from it towards either end.
    pub neutral: RGBColor,
    /// Data points of class +1 and −1.
    pub classes: [RGBColor; 2],
    /// The outline of a filled (training) point.
    pub ring: RGBColor,
    /// Chart labels and the weight histograms' axis and level ticks.
    pub label: RGBColor,
    /// Chart frames and the lines marking quantizer swaps.
    pub frame: RGBColor,
    /// The network diagram's nodes.
    pub node: RGBColor,
    /// The flip chart's lines, one per layer.
    pub layers: [RGBColor; 9],
}

impl TrainColours {
    pub const LIGHT: TrainColours = TrainColours {
        nets: [OKABE_ITO[0], OKABE_ITO[1], OKABE_ITO[2]],
        positive: OKABE_ITO[0],
        negative: OKABE_ITO[4],
        neutral: RGBColor(0xFF, 0xFF, 0xFF),
        classes: [OKABE_ITO[0], OKABE_ITO[1]],
        ring: RGBColor(0xFF, 0xFF, 0xFF),
        label: RGBColor(0x55, 0x55, 0x55),
        frame: RGBColor(0xBB, 0xBB, 0xBB),
        node: RGBColor(0x33, 0x33, 0x33),
        layers: [
            OKABE_ITO[0],
            OKABE_ITO[1],
            OKABE_ITO[2],
            OKABE_ITO[3],
            OKABE_ITO[5],
            OKABE_ITO[4],
            RGBColor(0x00, 0x00, 0x00), // black
            RGBColor(0x99, 0x99, 0x99), // grey
            RGBColor(0xF0, 0xE4, 0x42), // yellow
        ],
    };
    pub const DARK: TrainColours = TrainColours {
        neutral: RGBColor(0x22, 0x22, 0x22),
        label: RGBColor(0xBB, 0xBB, 0xBB),
        frame: RGBColor(0x66, 0x66, 0x66),
        node: RGBColor(0xDD, 0xDD, 0xDD),
        ..TrainColours::LIGHT
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_train_view_keeps_its_okabe_ito_meanings_in_every_theme() {
        for th in [Theme::LIGHT, Theme::DARK, Theme::HIGH_CONTRAST] {
            let t = th.train;
            assert_eq!(t.nets, [OKABE_ITO[0], OKABE_ITO[1], OKABE_ITO[2]], "quantized, float twin, STE twin");
            assert_eq!((t.positive, t.negative), (OKABE_ITO[0], OKABE_ITO[4]), "blue +, orange −");
            assert_eq!(t.classes, [OKABE_ITO[0], OKABE_ITO[1]]);
        }
    }

    #[test]
    fn every_role_has_a_colour_of_its_own_so_a_figure_can_be_recoloured() {
        for th in [Theme::LIGHT, Theme::DARK, Theme::HIGH_CONTRAST] {
            let slots = th.slots();
            for (i, a) in slots.iter().enumerate() {
                assert!(slots[i + 1..].iter().all(|b| b != a), "{a:?} has two roles");
            }
        }
    }

    #[test]
    fn the_projector_draws_the_train_view_as_on_white() {
        assert_eq!(Theme::HIGH_CONTRAST.train, Theme::LIGHT.train);
        assert_ne!(Theme::DARK.train.neutral, Theme::LIGHT.train.neutral);
    }
}

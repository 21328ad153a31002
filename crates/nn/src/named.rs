//! A closed set of values known by name — the loss, the optimizer, the activation function,
//! the initialisation: each enum lists its values and names once, and parsing, printing and
//! "expected …" messages come from that list (so the CLI, the page's hash and its select boxes
//! agree, and a new value is one line in its enum's table).

/// An enum whose values are chosen by name.
pub trait Named: Copy + PartialEq + 'static {
    /// What a value is called in messages: `loss`, `optimizer`.
    const WHAT: &'static str;
    /// Every value, in the order menus and messages list them.
    const ALL: &'static [Self];

    /// The name the CLI, the hash and the menus use.
    fn name(self) -> &'static str;

    /// Other names it is read from (lower case, `_` for `-`), e.g. Keras' names.
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }

    /// A name or an alias, in any case, `-` read as `_`.
    fn parse(text: &str) -> Result<Self, String> {
        let key = text.trim().to_ascii_lowercase().replace('-', "_");
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.name() == key || v.aliases().contains(&key.as_str()))
            .ok_or_else(|| format!("unknown {} '{text}'; {}", Self::WHAT, Self::expected()))
    }

    /// `expected mse, bce or softmax`.
    fn expected() -> String {
        let names: Vec<&str> = Self::ALL.iter().map(|v| v.name()).collect();
        format!("expected {}", or_list(&names))
    }
}

/// `a`, `a or b`, `a, b or c`.
pub fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Activation, Init, Loss};

    #[test]
    fn every_value_reads_back_from_its_name_and_its_aliases() {
        fn round_trip<T: Named + std::fmt::Debug>() {
            for &v in T::ALL {
                assert_eq!(T::parse(v.name()), Ok(v));
                assert_eq!(T::parse(&v.name().to_ascii_uppercase()), Ok(v));
                for alias in v.aliases() {
                    assert_eq!(T::parse(alias), Ok(v), "{alias}");
                }
            }
        }
        round_trip::<Loss>();
        round_trip::<Activation>();
        round_trip::<Init>();
        round_trip::<crate::optim::OptimizerKind>();
    }

    #[test]
    fn an_unknown_name_lists_the_choices() {
        assert_eq!(Init::parse("lecun").unwrap_err(), "unknown init 'lecun'; expected auto, glorot or he");
        assert_eq!(or_list(&["sgd", "adam"]), "sgd or adam");
    }
}

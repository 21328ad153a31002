//! "Predict, then observe": a step may ask the class to commit to an answer before it looks.
//!
//! ```text
//! predict=With alpha=0.5, what does q(0.3) become? | 0.0625 | *0.125 | 0.25
//! why=alpha scales the output, not the grid: round(0.3/0.125)·0.125·0.5 = 0.125.
//! ```
//!
//! The question, then two to four choices after ` | `, the right one marked with a leading `*`;
//! `why=` is the explanation shown once a choice is picked. All of it is plain text.

/// A step's prediction question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    pub question: String,
    pub choices: Vec<String>,
    /// The right choice's index in `choices`.
    pub answer: usize,
    /// Why the answer is right, shown after the pick.
    pub why: String,
}

/// The fewest and the most choices.
pub const CHOICES: (usize, usize) = (2, 4);

/// The longest question, choice or explanation, in characters.
pub const MAX_PREDICT: usize = 300;

impl Prediction {
    /// A prediction from the step's `predict=` and `why=` (each with its line); each problem
    /// goes to `at(line, message)`.
    pub fn parse(
        predict: Option<(usize, &String)>,
        why: Option<(usize, &String)>,
        at: &mut impl FnMut(usize, String),
    ) -> Option<Prediction> {
        let (pline, text) = match (predict, why) {
            (None, None) => return None,
            (None, Some((line, _))) => {
                at(line, "why= explains a prediction: add predict=QUESTION | CHOICE | *ANSWER".into());
                return None;
            }
            (Some((line, _)), None) => {
                at(line, "predict= needs its explanation: add why=… (shown once a choice is picked)".into());
                return None;
            }
            (Some(p), Some(_)) => p,
        };
        let why = why.map(|(_, w)| w.trim().to_string()).unwrap_or_default();
        let mut parts = text.split(" | ").map(str::trim);
        let question = parts.next().unwrap_or_default().to_string();
        let raw: Vec<&str> = parts.collect();
        let mut problems = Vec::new();
        if question.is_empty() {
            problems.push("the question comes first, then ' | ' and the choices".to_string());
        }
        if !(CHOICES.0..=CHOICES.1).contains(&raw.len()) {
            problems.push(format!(
                "{} choices: expected {} to {}, separated by ' | '",
                raw.len(),
                CHOICES.0,
                CHOICES.1
            ));
        }
        let marked: Vec<usize> = (0..raw.len()).filter(|&i| raw[i].starts_with('*')).collect();
        if marked.len() != 1 {
            problems.push(format!("{} choices marked right: mark exactly one with a leading *", marked.len()));
        }
        let choices: Vec<String> = raw.iter().map(|c| c.trim_start_matches('*').trim().to_string()).collect();
        if choices.iter().any(String::is_empty) {
            problems.push("an empty choice".into());
        }
        if let Some(c) = choices.iter().enumerate().find(|(i, c)| choices[..*i].contains(c)).map(|(_, c)| c) {
            problems.push(format!("the choice '{c}' is given twice"));
        }
        let long = std::iter::once(&question).chain(&choices).chain(std::iter::once(&why));
        if long.clone().any(|t| t.chars().count() > MAX_PREDICT) || why.is_empty() {
            problems.push(format!("the question, each choice and why= take 1 to {MAX_PREDICT} characters"));
        }
        if !problems.is_empty() {
            at(pline, format!("predict=: {}", problems.join("; ")));
            return None;
        }
        Some(Prediction { question, choices, answer: marked[0], why })
    }

    /// The letter of choice `i` as the handout prints it: (a), (b), …
    pub fn letter(i: usize) -> char {
        (b'a' + (i % 26) as u8) as char
    }
}

#[cfg(test)]
mod tests {
    use super::Prediction;

    fn parse(predict: Option<&str>, why: Option<&str>) -> (Option<Prediction>, Vec<(usize, String)>) {
        let (p, w) = (predict.map(String::from), why.map(String::from));
        let mut errors = Vec::new();
        let got =
            Prediction::parse(p.as_ref().map(|p| (3, p)), w.as_ref().map(|w| (4, w)), &mut |l, m| errors.push((l, m)));
        (got, errors)
    }

    #[test]
    fn a_question_its_choices_and_the_marked_answer_are_read() {
        let (p, errors) = parse(Some("What is q(0.3)? | 0.0625 | *0.125 | 0.25"), Some("alpha is a gain."));
        assert!(errors.is_empty(), "{errors:?}");
        let p = p.unwrap();
        assert_eq!(p.question, "What is q(0.3)?");
        assert_eq!(p.choices, ["0.0625", "0.125", "0.25"]);
        assert_eq!((p.answer, p.why.as_str()), (1, "alpha is a gain."));
    }

    #[test]
    fn a_prediction_needs_one_marked_answer_among_two_to_four_choices() {
        for (text, says) in [
            ("Q? | a | b", "0 choices marked right"),
            ("Q? | *a | *b", "2 choices marked right"),
            ("Q? | *a", "1 choices: expected 2 to 4"),
            ("Q? | *a | b | c | d | e", "5 choices: expected 2 to 4"),
            (" | *a | b", "the question comes first"),
            ("Q? | *a | a", "the choice 'a' is given twice"),
            ("Q? | *a | ", "an empty choice"),
        ] {
            let (p, errors) = parse(Some(text), Some("because"));
            assert!(p.is_none(), "{text}");
            assert!(errors.len() == 1 && errors[0].0 == 3 && errors[0].1.contains(says), "{text}: {errors:?}");
        }
    }

    #[test]
    fn predict_and_why_come_together() {
        let (_, errors) = parse(Some("Q? | *a | b"), None);
        assert!(errors[0].1.contains("needs its explanation: add why="), "{errors:?}");
        let (_, errors) = parse(None, Some("because"));
        assert!(errors[0].0 == 4 && errors[0].1.contains("add predict="), "{errors:?}");
        assert_eq!(parse(None, None), (None, Vec::new()));
    }
}

//! Class set-up shared by everything that sorts packets into named classes (bands, queues):
//! the queuing disciplines and the input conditioner. It gives the key path of a list
//! element, the class names with their duplicate check and lookups, and the first-match
//! rules compiled into a [`Classifier`].
//!
//! A policy names its classes once, in index order; each name may appear only once, since
//! rules, `default` and results refer to classes by name. Match conditions, whether written
//! in a class (`classes[i].match`) or in a separate `classify` list, are compiled in the
//! order written, and the first that matches a packet chooses its class; a packet no rule
//! matches goes to the default class (IOS class maps and `priority-list` rules, Linux
//! filters and ALTQ classifiers all evaluate their rules in order this way).

use super::{Classifier, MatchSpec, Matcher};
use crate::config::error::{join_path, Issue};

/// The key path of element `index` of the list under `key` at `at`: `at.key[index]`.
pub fn element_path(at: &str, key: &str, index: usize) -> String {
    format!("{}[{index}]", join_path(at, key))
}

/// Compiles `condition`, the `match` of the rule or class at `at`; node names in it resolve
/// through `node_address`.
pub fn compile_match(
    condition: &MatchSpec,
    at: &str,
    node_address: &dyn Fn(&str) -> Option<u32>,
) -> Result<Matcher, Issue> {
    condition.compile(&join_path(at, "match"), node_address)
}

/// A discipline's class names in index order, each given once.
#[derive(Clone, Debug, Default)]
pub struct ClassNames {
    names: Vec<String>,
}

impl ClassNames {
    /// No names yet, with room for `capacity`.
    pub fn with_capacity(capacity: usize) -> Self {
        ClassNames { names: Vec::with_capacity(capacity) }
    }

    /// Adds `name`, the name of a `what` (`class`, `band`) written at `path`; a name given
    /// before is an error there.
    pub fn add(&mut self, name: &str, what: &str, path: impl Into<String>) -> Result<(), Issue> {
        if self.contains(name) {
            return Err(Issue::at(path, format!("{what} `{name}` is defined twice")));
        }
        self.push(name);
        Ok(())
    }

    /// Adds `name` without checking it (a name the discipline itself gives, or one its caller
    /// has checked with its own message).
    pub fn push(&mut self, name: &str) {
        self.names.push(name.to_owned());
    }

    /// Whether `name` is one of the names.
    pub fn contains(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// The index of `name`, if it is one of the names.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The index of `name`, a `what` (`band`, `queue`) referred to at `path`; an unknown name
    /// is an error there that suggests the nearest known one.
    pub fn resolve(&self, name: &str, what: &str, path: impl Into<String>) -> Result<u32, Issue> {
        self.position(name)
            .map(|i| i as u32)
            .ok_or_else(|| Issue::unknown_name(path, what, name, self.names.iter().map(String::as_str)))
    }

    /// The index of class `name` referred to at `path`; an unknown name is an error there
    /// that lists the classes.
    pub fn find_class(&self, name: &str, path: impl Into<String>) -> Result<usize, Issue> {
        self.position(name).ok_or_else(|| {
            Issue::at(path, format!("there is no class `{name}`"))
                .hint(format!("name one of: {}", self.names.join(", ")))
        })
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The names, in index order.
    pub fn into_vec(self) -> Vec<String> {
        self.names
    }
}

/// First-match rules, compiled in the order written.
#[derive(Debug, Default)]
pub struct Rules {
    rules: Vec<(Matcher, u32)>,
}

impl Rules {
    /// No rules yet.
    pub fn new() -> Self {
        Rules::default()
    }

    /// Compiles `condition`, the `match` of the rule or class at `at`, as the next rule: what
    /// it matches goes to class `class`. Node names in it resolve through `node_address`.
    pub fn add(
        &mut self,
        condition: &MatchSpec,
        at: &str,
        class: u32,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<(), Issue> {
        let matcher = compile_match(condition, at, node_address)?;
        self.push(matcher, class);
        Ok(())
    }

    /// Adds a compiled rule: what `matcher` matches goes to class `class`.
    pub fn push(&mut self, matcher: Matcher, class: u32) {
        self.rules.push((matcher, class));
    }

    /// The classes the rules send packets to, in rule order.
    pub fn targets(&self) -> impl Iterator<Item = u32> + '_ {
        self.rules.iter().map(|(_, class)| *class)
    }

    /// Sends every rule's packets to `map(class)` instead of `class` (when class numbers
    /// written in rules become indices).
    pub fn map_targets(self, map: impl Fn(u32) -> u32) -> Self {
        Rules { rules: self.rules.into_iter().map(|(matcher, class)| (matcher, map(class))).collect() }
    }

    /// The classifier: the first rule that matches chooses the class, else `default_class`.
    pub fn classifier(self, default_class: u32) -> Classifier {
        Classifier::new(self.rules, default_class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_paths_index_the_list() {
        assert_eq!(element_path("policies.p", "classes", 2), "policies.p.classes[2]");
        assert_eq!(element_path("", "classify", 0), "classify[0]");
    }

    #[test]
    fn a_name_given_twice_is_refused_where_it_is_repeated() {
        let mut names = ClassNames::with_capacity(2);
        names.add("voice", "class", "c[0].name").unwrap();
        let issue = names.add("voice", "class", "c[1].name").unwrap_err();
        assert_eq!(
            (issue.key_path.as_str(), issue.message.as_str()),
            ("c[1].name", "class `voice` is defined twice")
        );
        assert_eq!(names.into_vec(), ["voice"]);
    }

    #[test]
    fn lookups_name_the_known_classes() {
        let mut names = ClassNames::default();
        for name in ["high", "low"] {
            names.push(name);
        }
        assert_eq!(names.resolve("low", "band", "d").unwrap(), 1);
        let issue = names.resolve("hihg", "band", "d").unwrap_err();
        assert_eq!(issue.message, "unknown band `hihg`");
        let issue = names.find_class("mid", "d").unwrap_err();
        assert_eq!(issue.message, "there is no class `mid`");
        assert_eq!(issue.hint.as_deref(), Some("name one of: high, low"));
    }

    #[test]
    fn the_first_matching_rule_chooses_and_the_rest_go_to_the_default() {
        let (value, _) = crate::config::yaml::parse("{dscp: 46}").unwrap();
        let voice: MatchSpec = serde_json::from_value(value).unwrap();
        let mut rules = Rules::new();
        rules.add(&voice, "classify[0]", 0, &|_| None).unwrap();
        rules.add(&MatchSpec::default(), "classify[1]", 1, &|_| None).unwrap();
        assert_eq!(rules.targets().collect::<Vec<_>>(), [0, 1]);
        let classifier = rules.map_targets(|class| class + 1).classifier(0);
        let packet = crate::packet::testing::packet;
        assert_eq!(classifier.classify(&packet(1, 100, 46)), 1);
        assert_eq!(classifier.classify(&packet(2, 100, 0)), 2);
    }
}

//! Every rule, declared once: its id, what runs it and the severities it can
//! give. Its docs and default severity are data, in `rules/<id>.toml`
//! (read by `catalogue.rs`, which takes the list of files from here); its
//! logic is in `src/rules/<id>.rs` for a rule that reads the model. This
//! module imports nothing of the crate, so the catalogue, the config and the
//! diagnostics can all name a rule without looking up at the rules.

use serde::{Serialize, Serializer};
use std::fmt;

/// How bad a finding is. The config can set another level per rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "note" => Some(Severity::Note),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// What runs a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// Reads the project model: a `check` in `src/rules/<id>.rs`.
    Model,
    /// Emitted by the pipeline itself (`lib.rs`, `suppress.rs`).
    Pipeline,
    /// Emitted only by `idemlint audit`, on what it reads from a live
    /// database (`src/audit/judge.rs`); tested by `tests/audit_*.rs`.
    Live,
    /// Documented, not run yet.
    Planned,
}

/// The declaration. Each line: the variant, the id users write (in
/// `allow(..)`, the config and `explain`, and in every output format), the
/// kind (a model rule names its module under `src/rules/`, which holds its
/// `check`), and every severity the rule can give before the config's
/// levels. `rules/<id>.toml` must exist (it is compiled in); a test ties the
/// severities to its `default_severity` and `severity_note` and to what the
/// fixtures emit. The order is the order `idemlint rules` lists them in.
///
/// A macro that takes a macro: `src/rules/mod.rs` expands the same list into
/// its table of checks, so a rule is declared here and nowhere else.
macro_rules! each_rule {
    ($then:ident) => {
        $then! {
            TtlBelowReplayHorizon = "ttl-below-replay-horizon",
                Model(ttl_below_replay_horizon), [Note, Warning, Error];
            KeyRecordedAfterEffect = "key-recorded-after-effect",
                Model(key_recorded_after_effect), [Warning, Error];
            MissingUniqueKeyConstraint = "missing-unique-key-constraint",
                Model(missing_unique_key_constraint), [Note, Warning, Error];
            UniqueGuardSplitByPartition = "unique-guard-split-by-partition",
                Model(unique_guard_split_by_partition), [Note, Warning, Error];
            CheckThenInsert = "check-then-insert",
                Model(check_then_insert), [Warning, Error];
            EvictingKeyStore = "evicting-key-store",
                Model(evicting_key_store), [Note, Warning, Error];
            MisspelledIdempotencyHeader = "misspelled-idempotency-header",
                Model(misspelled_idempotency_header), [Note, Warning, Error];
            FreshKeyPerRetry = "fresh-key-per-retry",
                Model(fresh_key_per_retry), [Note, Warning, Error];
            RetryOutlivesKeyRetention = "retry-outlives-key-retention",
                Model(retry_outlives_key_retention), [Note, Warning, Error];
            UnscopedIdempotencyKey = "unscoped-idempotency-key",
                Model(unscoped_idempotency_key), [Note, Warning];
            MissingRequestFingerprint = "missing-request-fingerprint",
                Model(missing_request_fingerprint), [Note];
            DeleteBasedExpiry = "delete-based-expiry",
                Model(delete_based_expiry), [Note];
            LiveSchemaDrift = "live-schema-drift", Live, [Note, Warning];
            ParseError = "parse-error", Pipeline, [Warning, Error];
            UnusedSuppression = "unused-suppression", Pipeline, [Warning];
        }
    };
}
pub(crate) use each_rule;

macro_rules! rule_ids {
    ($($variant:ident = $id:literal, $kind:ident $(($module:ident))?, [$($sev:ident),+];)*) => {
        /// A rule's identity. Shown, serialised and fingerprinted as its id
        /// (`ttl-below-replay-horizon`), never as the variant's name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RuleId {
            $($variant),*
        }

        impl RuleId {
            /// Every rule, in the order of the declaration.
            pub const ALL: &'static [RuleId] = &[$(RuleId::$variant),*];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $(RuleId::$variant => $id),*
                }
            }

            pub const fn kind(self) -> RuleKind {
                match self {
                    $(RuleId::$variant => RuleKind::$kind),*
                }
            }

            /// Every severity the rule can give, before the config's levels.
            pub const fn severities(self) -> &'static [Severity] {
                match self {
                    $(RuleId::$variant => &[$(Severity::$sev),+]),*
                }
            }

            /// `rules/<id>.toml`, compiled in.
            pub(crate) const fn docs_file(self) -> &'static str {
                match self {
                    $(RuleId::$variant => include_str!(concat!("../rules/", $id, ".toml"))),*
                }
            }
        }
    };
}
each_rule!(rule_ids);

impl RuleId {
    /// The rule a name written by a user means, exactly (see
    /// `catalogue::closest` for "did you mean").
    pub fn parse(name: &str) -> Option<RuleId> {
        RuleId::ALL.iter().copied().find(|r| r.as_str() == name)
    }

    /// Whether the binary runs the rule (all but the planned ones).
    pub const fn is_built(self) -> bool {
        !matches!(self.kind(), RuleKind::Planned)
    }

    /// The most severe level the rule can give.
    pub fn max_severity(self) -> Severity {
        self.severities()
            .iter()
            .copied()
            .max()
            .unwrap_or(Severity::Warning)
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RuleId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_parse_back() {
        for (i, r) in RuleId::ALL.iter().enumerate() {
            assert_eq!(RuleId::parse(r.as_str()), Some(*r));
            assert_eq!(r.to_string(), r.as_str());
            assert!(
                RuleId::ALL[..i].iter().all(|o| o.as_str() != r.as_str()),
                "{r} declared twice"
            );
            assert_eq!(
                serde_json::to_string(r).ok(),
                Some(format!("\"{}\"", r.as_str()))
            );
        }
        assert_eq!(RuleId::parse("ttl-below-replay-horzon"), None);
        assert_eq!(RuleId::parse("TtlBelowReplayHorizon"), None);
    }

    #[test]
    fn every_rule_declares_its_severities_once_in_order() {
        for r in RuleId::ALL {
            let s = r.severities();
            assert!(!s.is_empty(), "{r}");
            assert!(s.windows(2).all(|w| w[0] < w[1]), "{r}: {s:?}");
        }
    }
}

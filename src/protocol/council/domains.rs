//! The domains a council can seat an expert for: each with what its
//! expert looks at and the standards it holds the work to, for the Phase 1
//! prompt (FP-15). The seed leaves the registry to the caller; this is
//! quorum's, and a domain outside it is refused with the list.

/// One domain of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Domain {
    pub name: &'static str,
    /// What its expert looks at.
    pub focus: &'static str,
    /// What it holds the work to.
    pub standards: &'static str,
}

/// Every domain quorum knows, alphabetically.
pub const DOMAINS: &[Domain] = &[
    Domain {
        name: "accessibility",
        focus: "keyboard and screen-reader use, contrast, motion, focus order, error messages people can act on",
        standards: "WCAG 2.2 AA; platform accessibility guidelines",
    },
    Domain {
        name: "api",
        focus: "contracts, versioning, error shapes, idempotency, pagination, backwards compatibility",
        standards: "the project's API guidelines; HTTP semantics (RFC 9110)",
    },
    Domain {
        name: "architecture",
        focus: "boundaries, coupling, data ownership, failure domains, sequencing of the work",
        standards: "the system's stated architecture decisions and their constraints",
    },
    Domain {
        name: "brand",
        focus: "whether the work sounds and looks like the organisation: voice, naming, visual identity, the promises it makes to people",
        standards: "the brand guidelines and voice the scope states",
    },
    Domain {
        name: "compliance",
        focus: "regulated data, retention, audit trails, consent, jurisdiction",
        standards: "the obligations the organisation states (GDPR, SOC 2, PCI DSS where they apply)",
    },
    Domain {
        name: "content",
        focus: "accuracy, structure a reader can scan, consistent terms, tone that fits the reader and the moment",
        standards: "the style guide and content standards the scope states",
    },
    Domain {
        name: "correctness",
        focus: "logic errors, edge cases, invariants, error handling, concurrency hazards",
        standards: "the specification and tests of the code under review",
    },
    Domain {
        name: "cost",
        focus: "running cost, cost growth with load, licence and vendor exposure",
        standards: "the budget and unit-cost targets the scope states",
    },
    Domain {
        name: "data",
        focus: "schema design, migrations, integrity constraints, consistency, backfills",
        standards: "the data model's documented invariants",
    },
    Domain {
        name: "documentation",
        focus: "accuracy, completeness for the reader's task, examples that work",
        standards: "the project's documentation conventions",
    },
    Domain {
        name: "evidence",
        focus: "source credibility, independence of sources, sample sizes, whether conclusions follow",
        standards: "the evidence standards of the field in question",
    },
    Domain {
        name: "maintainability",
        focus: "clarity, duplication, test coverage of risky paths, ease of change",
        standards: "the codebase's own conventions",
    },
    Domain {
        name: "operations",
        focus: "deployability, rollback, observability, on-call burden, runbooks",
        standards: "the team's production-readiness checklist",
    },
    Domain {
        name: "performance",
        focus: "latency, throughput, memory, algorithmic complexity, hot paths under real load",
        standards: "the service's latency and resource objectives",
    },
    Domain {
        name: "privacy",
        focus: "personal data flows, minimisation, access to personal data, deletion",
        standards: "privacy by design; the data-protection law that applies",
    },
    Domain {
        name: "product",
        focus: "whether the work serves the user's task and the business goal it claims to",
        standards: "the goals and success measures the scope states",
    },
    Domain {
        name: "reliability",
        focus: "failure modes, retries and timeouts, degradation, data loss, recovery",
        standards: "the service's availability objectives",
    },
    Domain {
        name: "scalability",
        focus: "growth limits, contention points, partitioning, what breaks at 10x",
        standards: "the load forecasts the scope states",
    },
    Domain {
        name: "security",
        focus: "threat vectors, attack surface, authentication and authorisation, secrets, data exposure",
        standards: "OWASP ASVS; the organisation's security baseline",
    },
    Domain {
        name: "testing",
        focus: "what the tests prove, what they miss, flakiness, test data",
        standards: "the project's testing strategy",
    },
    Domain {
        name: "ux",
        focus: "task completion, clarity of labels and flows, consistency, the user population",
        standards: "the product's design system and usability findings",
    },
];

/// The domain named `name`.
pub fn find(name: &str) -> Option<&'static Domain> {
    DOMAINS.iter().find(|domain| domain.name == name)
}

/// Every domain's name, for errors and `--help`.
pub fn names() -> Vec<&'static str> {
    DOMAINS.iter().map(|domain| domain.name).collect()
}

/// The domains of a council that names none: by its task context when one
/// is named (`content`: the people, the words and the reach), else by mode.
pub fn defaults_for(
    mode: super::model::CouncilMode,
    context: Option<super::model::TaskContext>,
) -> &'static [&'static str] {
    use super::model::TaskContext;
    match context {
        Some(TaskContext::Content) => &["ux", "content", "accessibility"],
        _ => defaults(mode),
    }
}

/// The domains of a council that names none, by mode.
pub fn defaults(mode: super::model::CouncilMode) -> &'static [&'static str] {
    use super::model::CouncilMode::*;
    match mode {
        Review => &["correctness", "security", "maintainability"],
        Audit => &["security", "privacy", "compliance"],
        Brainstorm | Design => &["architecture", "operations", "product"],
        Research | Synthesis => &["evidence", "product", "architecture"],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_is_sorted_unique_and_names_slots_safely() {
        let names = names();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        for name in names {
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{name}"
            );
        }
    }

    #[test]
    fn every_mode_defaults_to_known_domains() {
        for mode in super::super::model::CouncilMode::ALL {
            for domain in defaults(mode) {
                assert!(find(domain).is_some(), "{domain}");
            }
        }
    }
}

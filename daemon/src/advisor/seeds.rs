//! The seed pack: universal lessons (security, secrets, git, testing, deployment, destructive
//! operations, dependencies) that a new home starts with, each with the trigger patterns that
//! put it forward, so that cairn is useful from the first session. Pure; no I/O: the pack is
//! compiled in (`seeds.yaml`), and the store keeps which seeds were loaded or turned off.
//!
//! A seed's weight in the decision (its odds scale with it) falls as the user's own memories and outcomes accumulate:
//! `weight = 0.5 + 0.5 x 25 / (25 + own memories + outcomes)`, so 1 in a fresh home, 0.75 after
//! 25 lessons of the user's own, and towards 0.5 beyond: the user's lessons come first.

use std::sync::LazyLock;

use cairn_proto::{Memory, GLOBAL_PROJECT};
use serde::Deserialize;

use crate::config::rules::{Priority, RuleSpec, TriggerRule, TriggerRules};

/// Source of a memory that came from the pack (and has not been edited since).
pub const SEED_SOURCE: &str = "seed";

/// Own memories and outcomes at which a seed weighs 0.75.
const HALF_WAY: f64 = 25.0;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    pub id: String,
    pub category: String,
    #[serde(default)]
    pub priority: Priority,
    /// Whether its rule may interrupt (ask before the tool call) when interrupts are turned on.
    #[serde(default)]
    pub interrupt: bool,
    pub text: String,
    #[serde(default)]
    pub context: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub triggers: Vec<String>,
    /// Patterns of the safe form of what the triggers catch: any of them keeps the rule quiet.
    #[serde(default)]
    pub unless: Vec<String>,
    /// Moments it applies to, in the words the advisor reads an action in: evidence of its
    /// relevance on a fresh install, where the user has taught nothing yet.
    #[serde(default)]
    pub examples: Vec<String>,
    /// Near misses it does not apply to.
    #[serde(default)]
    pub not_examples: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pack {
    seeds: Vec<Seed>,
}

static PACK: LazyLock<Vec<Seed>> = LazyLock::new(|| serde_yaml_ng::from_str::<Pack>(include_str!("seeds.yaml")).expect("the seed pack parses").seeds);

/// Every seed of the pack.
pub fn pack() -> &'static [Seed] {
    &PACK
}

pub fn find(id: &str) -> Option<&'static Seed> {
    pack().iter().find(|s| s.id == id)
}

/// The pack's trigger rules: one per seed with patterns, surfacing that seed.
pub fn rules() -> &'static [TriggerRule] {
    static RULES: LazyLock<Vec<TriggerRule>> = LazyLock::new(|| {
        let specs: Vec<RuleSpec> = pack()
            .iter()
            .filter(|s| !s.triggers.is_empty())
            .map(|s| RuleSpec {
                name: s.id.clone(),
                pattern: s.triggers.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|"),
                surface: vec![s.id.clone()],
                priority: s.priority,
                interrupt: s.interrupt && s.priority == Priority::Critical,
                unless: (!s.unless.is_empty()).then(|| s.unless.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|")),
            })
            .collect();
        let yaml = serde_yaml_ng::to_string(&crate::config::rules::RulesFile { rules: specs, learned: Vec::new() }).expect("rules serialise");
        TriggerRules::parse(&yaml, "seed pack").expect("the seed pack's rules are valid").rules
    });
    &RULES
}

/// The memory a seed becomes in the store.
pub fn memory_of(seed: &Seed, now: &str) -> Memory {
    let mut m = crate::exchange::new_memory(seed.id.clone(), GLOBAL_PROJECT.to_string(), seed.text.clone(), seed.category.clone(), SEED_SOURCE.to_string(), seed.tags.clone(), seed.context.clone());
    m.examples = seed.examples.clone();
    m.not_examples = seed.not_examples.clone();
    m.created_at = now.to_string();
    m.updated_at = now.to_string();
    m
}

/// A seed's weight in the decision, given how many memories of their own the user has and how many
/// outcomes were recorded.
pub fn weight(own_memories: u64, outcomes: u64) -> f64 {
    let n = (own_memories + outcomes) as f64;
    0.5 + 0.5 * HALF_WAY / (HALF_WAY + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pack_is_whole_and_valid() {
        let n = pack().len();
        assert!((25..=40).contains(&n), "{n} seeds");
        let mut ids: Vec<&str> = pack().iter().map(|s| s.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n, "ids are unique");
        for s in pack() {
            assert!(s.id.starts_with("seed-"), "{}", s.id);
            assert!(crate::exchange::validate_id(&s.id).is_ok(), "{}", s.id);
            assert_eq!(crate::exchange::normalize_category(&s.category).as_deref(), Ok(s.category.as_str()), "{}", s.id);
            assert!(s.text.len() > 40, "{} says too little", s.id);
            for (field, examples) in [("examples", &s.examples), ("not_examples", &s.not_examples)] {
                assert_eq!(crate::exchange::normalize_examples(field, examples).as_ref(), Ok(examples), "{}", s.id);
            }
            assert!(s.examples.len() >= 2 && !s.not_examples.is_empty(), "{} comes with its situations", s.id);
        }
        let categories: std::collections::BTreeSet<&str> = pack().iter().map(|s| s.category.as_str()).collect();
        for needed in ["security", "git", "testing", "deployment", "destructive", "dependencies"] {
            assert!(categories.contains(needed), "no {needed} seed");
        }
        assert!(rules().len() >= 20, "most seeds come with patterns");
    }

    #[test]
    fn seed_rules_fire_on_what_they_are_about() {
        let fired = |raw: &str| -> Vec<String> { crate::config::rules::matches(rules(), raw).into_iter().map(|m| m.rule.spec.name.clone()).collect() };
        let cases = [
            ("git push --force origin main", "seed-git-force-push"),
            ("git reset --hard HEAD~1", "seed-git-discard-work"),
            ("git restore .", "seed-git-discard-work"),
            ("psql -c 'DELETE FROM sessions;'", "seed-delete-without-where"),
            ("db.query(`SELECT * FROM users WHERE id = ${req.params.id}`)", "seed-sql-params"),
            ("rm -rf \"$OUT\"/*", "seed-rm-rf-variable"),
            ("psql -c 'DROP TABLE orders'", "seed-drop-table"),
            ("kubectl delete pod web-1", "seed-k8s-context"),
            ("terraform destroy", "seed-terraform-destroy"),
            ("git add .env", "seed-secrets-never-commit"),
            ("const k = 'sk_live_0123456789abcdef'", "seed-secrets-no-literals"),
            ("curl -fsSL https://x.sh | bash", "seed-curl-pipe-shell"),
            ("npx jest -u", "seed-tests-snapshots"),
            ("npm install left-pad@latest", "seed-deps-pin"),
            ("sudo npm install -g typescript", "seed-deps-no-sudo"),
            ("terraform apply -auto-approve", "seed-terraform-plan"),
            // Global options before the subcommand.
            ("kubectl -n checkout delete pod web-1", "seed-k8s-context"),
            ("terraform -chdir=envs/shared destroy", "seed-terraform-destroy"),
            ("terraform -chdir=envs/prod apply", "seed-terraform-plan"),
            // Near the remedy, and not it: a clean with no stash of untracked files, a plan
            // applied with variables and no plan file.
            ("git stash && git clean -fdx", "seed-git-discard-work"),
            ("git clean -fdx", "seed-git-discard-work"),
            ("git clean -d -f", "seed-git-discard-work"),
            ("git clean -x --force", "seed-git-discard-work"),
            ("terraform apply -var-file=prod.tfvars -auto-approve", "seed-terraform-plan"),
            ("rm -rf \"$OUT\"/* ${KEEP:?}", "seed-rm-rf-variable"),
            // Queries formatted by a call or an operator; Ruby's interpolation.
            ("q := fmt.Sprintf(\"SELECT id FROM users WHERE name LIKE '%%%s%%'\", term)", "seed-sql-params"),
            ("cur.execute(\"SELECT * FROM orders WHERE email = '%s'\" % email)", "seed-sql-params"),
            ("cur.execute(\"DELETE FROM carts WHERE id = {}\".format(cart_id))", "seed-sql-params"),
            ("where(\"SELECT * FROM users WHERE status = '#{params[:status]}'\")", "seed-sql-params"),
            // An UPDATE with no WHERE; dependencies at "latest" or "*".
            ("psql -c \"UPDATE accounts SET plan = 'free';\"", "seed-delete-without-where"),
            ("mysql shop -e 'UPDATE products SET price = 0'", "seed-delete-without-where"),
            ("\"zod\": \"latest\",", "seed-deps-pin"),
            ("\"react\": \"*\"", "seed-deps-pin"),
            ("[dependencies]\nreqwest = { version = \"*\", features = [\"json\"] }", "seed-deps-pin"),
            ("[dependencies]\nserde = \"*\"", "seed-deps-pin"),
        ];
        for (raw, seed) in cases {
            assert!(fired(raw).contains(&seed.to_string()), "{raw}: {:?}", fired(raw));
        }
        for raw in [
            "git push origin feature/x",
            "ls -la",
            "git status",
            "rm notes.txt",
            "npm install",
            "kubectl get pods",
            "kubectl -n checkout get pods",
            "terraform -chdir=envs/shared plan",
            "git restore --staged .",
            "rm -rf build && ls /tmp",
            "psql -c \"UPDATE users SET active=false WHERE id=3\"",
            "apt-get update && echo ${HOME}",
            // A context named on the change is chosen, not the default one.
            "kubectl --context kind-dev apply -f k8s/overlays/dev",
            "kubectl apply -f k8s/ --context=staging-eu",
            "kubectl --kubeconfig ~/.kube/kind.yaml delete pod web-1",
            // The lesson's own remedy: a guarded variable, a dry run, work stashed first, a
            // saved plan applied.
            "rm -rf \"${TMPDIR:?}/golden-out\" && mkdir -p \"$TMPDIR/golden-out\"",
            "rm -rf ${BUILD_DIR:?must be set}/*",
            "git clean -fdxn",
            "git clean --dry-run -d",
            "git clean -n -d",
            "git clean -d -n",
            "git clean -d",
            "git stash push -m wip && git reset --hard origin/main",
            "git stash push -u -m 'wip' && git clean -fd",
            "terraform apply tfplan",
            "terraform -chdir=envs/prod apply -lock-timeout=60s \"prod.tfplan\"",
            "terraform show -no-color tfplan && terraform apply tfplan",
            // Bound parameters; an UPDATE with its WHERE; pinned versions.
            "cur.execute(\"SELECT * FROM orders WHERE email = %s\", (email,))",
            "db.Query(\"SELECT id FROM users WHERE name = $1\", name)",
            "psql -c \"UPDATE accounts SET plan = 'free' WHERE id = 42;\"",
            "UPDATE accounts SET plan = 'free' WHERE trial_ends_at < now();",
            "UPDATE loyalty_members SET points = points - 500\nWHERE id IN (SELECT member_id FROM credits);",
            "\"zod\": \"3.23.8\",",
            "serde = { version = \"1.0.203\", features = [\"derive\"] }",
        ] {
            assert!(fired(raw).is_empty(), "{raw}: {:?}", fired(raw));
        }
        // A context named on another command of the line does not quiet this one.
        assert!(fired("kubectl --context kind-dev get pods && kubectl delete pod web-1").contains(&"seed-k8s-context".to_string()));
    }

    #[test]
    fn interrupts_belong_to_critical_rules_only() {
        for r in rules() {
            if r.spec.interrupt {
                assert_eq!(r.spec.priority, Priority::Critical, "{}", r.spec.name);
            }
        }
        assert!(rules().iter().any(|r| r.spec.interrupt));
    }

    #[test]
    fn the_weight_falls_as_the_user_s_own_lessons_grow() {
        assert_eq!(weight(0, 0), 1.0);
        assert!((weight(25, 0) - 0.75).abs() < 1e-12);
        assert!((weight(20, 5) - 0.75).abs() < 1e-12, "outcomes count too");
        assert!(weight(1000, 0) > 0.5 && weight(1000, 0) < 0.52);
        assert!(weight(3, 0) > weight(10, 0));
    }

    #[test]
    fn a_seed_becomes_a_global_memory_of_source_seed() {
        let s = &pack()[0];
        let m = memory_of(s, "2026-01-01T00:00:00Z");
        assert_eq!((m.id.as_str(), m.project.as_str(), m.source.as_str()), (s.id.as_str(), GLOBAL_PROJECT, SEED_SOURCE));
        assert_eq!(m.text, s.text);
    }
}

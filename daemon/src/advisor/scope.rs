//! Where an action aims and where a lesson holds: a lesson about production (or real data) is
//! not for a command or a request that names a local, development or test target and nothing of
//! production. `alembic upgrade head` against `localhost` is not the migration the backup lesson
//! warns about; `kubectl --context kind-dev apply` reaches no shared cluster. Pure.
//!
//! Only commands and prompts are read: they name where they act. An edit's code runs wherever it
//! is deployed, whatever host its defaults name.

use std::sync::LazyLock;

use regex::Regex;

/// Words of a lesson that says it is about production or real data.
static PRODUCTION_LESSON: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\b(production|prod|real data)\b").expect("a valid pattern"));

/// What names a local, development or test target in a command or a request.
static LOCAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\blocalhost\b|\b127\.0\.0\.1\b|\[::1\]",
        r"|--(?:kube-)?context[= ](?:kind|minikube|docker-desktop|k3d|rancher-desktop|orbstack)\b",
        r"|\b(?:minikube|k3d)\b",
        r"|\b(?:RAILS|RACK|NODE|APP|MIX|FLASK|DJANGO|PHP|GO)_ENV=(?:dev|development|test|testing|local)\b",
        r"|\b[\w.-]+\.sqlite3?\b",
        r"|\b\w+_(?:test|dev|development|local)\b",
        r"|\b(?:local|dev|development|test|testing|throwaway|scratch)\s+(?:database|db|cluster|stack|environment|env|instance|server|schema|container|postgres|mysql|redis)\b",
        r"|\blocally\b",
    ))
    .expect("a valid pattern")
});

/// What names production (or a shared system) in the same action: a tunnel through `localhost`
/// to the production primary is production.
static PRODUCTION_TARGET: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\b(prod|production|prd|live|primary|shared)\b|[\w-]prod\b|\bprod[\w-]").expect("a valid pattern"));

/// The marker that says `action` (a command as written, with its description; or a prompt)
/// aims at a local, development or test target, when it does and names nothing of production.
/// `kind` is the action's kind (`crate::base::event::action_kind`): only commands and prompts
/// are read.
pub fn local_target(kind: &str, action: &str) -> Option<String> {
    if !(kind == "Bash" || kind == "prompt") || PRODUCTION_TARGET.is_match(action) {
        return None;
    }
    // Shown in `why`, which is kept: never a secret, whatever shape it has.
    LOCAL.find(action).map(|m| crate::base::redact::redact_text(m.as_str()))
}

/// Why `lesson` is not for an action aimed at the local target `marker`, when it is about
/// production.
pub fn elsewhere(marker: &str, lesson: &str) -> Option<String> {
    PRODUCTION_LESSON.is_match(lesson).then(|| format!("the action aims at a local or test target ('{marker}'), the lesson at production or real data"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIGRATIONS: &str = "Take a fresh backup before running schema migrations on production, rehearse them on a copy of production data.";

    #[test]
    fn local_targets_are_named_by_host_context_environment_file_or_words() {
        for action in [
            "Apply migrations to the dev database DATABASE_URL=postgresql://app:app@localhost:5432/app alembic upgrade head",
            "kubectl --context kind-checkout apply -f k8s/",
            "bin/rails db:migrate RAILS_ENV=test",
            "sqlite3 var/dev.sqlite3 \"DELETE FROM sessions WHERE expires_at < date('now')\"",
            "psql -d analytics_test -c 'TRUNCATE events'",
            "Reset the local test database between runs",
            "run the new migration locally first",
            "helm install redis bitnami/redis --kube-context minikube",
        ] {
            assert!(local_target("Bash", action).is_some(), "{action}");
        }
    }

    #[test]
    fn production_named_anywhere_in_the_action_wins() {
        for action in [
            "Open a tunnel and migrate prod: psql -h localhost -p 5433 -d shop_prod -f migrate.sql",
            "kubectl --context prod-eu-1 apply -f k8s/",
            "alembic upgrade head",
            "Run migrations on the production database",
            "psql -h localhost -d orders -c 'select 1' # through the tunnel to the primary",
        ] {
            assert_eq!(local_target("Bash", action), None, "{action}");
        }
    }

    #[test]
    fn only_a_production_lesson_on_a_command_or_a_prompt_is_elsewhere() {
        let local = "alembic upgrade head against localhost";
        assert_eq!(local_target("Bash", local).as_deref(), Some("localhost"));
        assert!(local_target("prompt", local).is_some());
        assert_eq!(local_target("edit", local), None, "an edit's code runs wherever it is deployed");
        assert!(elsewhere("localhost", MIGRATIONS).unwrap().contains("'localhost'"));
        assert_eq!(elsewhere("localhost", "Keep commits small and focused."), None);
    }
}

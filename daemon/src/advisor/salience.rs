//! Salience: how much an action warrants advice at all, whatever the memories say. A look around
//! (ls, Read, Grep) rarely does; a write, a push, a delete, a deploy or a migration often does.
//! It is its own signal, in [0, 1], with the reason in words. Pure; no I/O.

use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};
use serde_json::Value;

use crate::base::event::{EventKind, HookEvent};

/// Salience below this is a look around (read only): trigger rules and interrupts leave it be.
pub const READ_ONLY_CEILING: f64 = 0.2;

#[derive(Debug, Clone, PartialEq)]
pub struct Salience {
    pub score: f64,
    pub reason: &'static str,
}

/// Command classes, most consequential first; a command line takes its highest class.
struct Class {
    score: f64,
    reason: &'static str,
    pattern: &'static str,
}

const CLASSES: &[Class] = &[
    Class {
        score: 1.0,
        reason: "destroys data or history",
        pattern: r"\brm\s+(-\w*[rf]\w*\s+)*-\w*[rf]|\bgit\s+(reset\s+--hard|clean\s+-\w*f|push\s+.*(--force|\s-f\b|\s\+\w)|branch\s+-D|checkout\s+--\s+\.|(switch|checkout)\s+(\S+\s+)*(-f|--force|--discard-changes)\b|restore\s+(-\S+\s+)*\.(\s|$)|stash\s+(drop|clear)\b)|\b(drop|truncate)\s+(table|database|schema)|\bdelete\s+from\b|\bdropdb\b|\bmigrate\s+reset\b|\bdb:(drop|reset)\b|\bflush(all|db)\b|\bkubectl(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+delete\b|\bterra(form|grunt)(\s+-\S+)*\s+(run-all\s+)?destroy\b|\bpulumi(\s+-\S+)*\s+destroy\b|\bhelm(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(uninstall|delete)\b|\bargocd\s+app\s+delete\b|\baws(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+s3\s+(rm|rb)\b|\bgsutil(\s+-\w+)*\s+(rm|rb)\b|\bbq\s+rm\b|\bdocker\s+(system\s+prune|volume\s+rm)|\bmkfs|\bdd\s+if=|\bchmod\s+-R\s+777|\bshred\b",
    },
    Class {
        score: 0.9,
        reason: "changes something shared (remote, production, database)",
        pattern: r"\bgit\s+push\b|\bdeploy|\bkubectl(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(apply|rollout|scale|set|patch|edit|replace|exec|cordon|uncordon|drain|taint|label|annotate|argo\s+rollouts\s+(promote|abort|undo|retry|set))\b|\bhelm(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(install|upgrade|rollback)\b|\bterra(form|grunt)(\s+-\S+)*\s+(run-all\s+)?(apply|import|state\s+(mv|rm|push|replace-provider))\b|\bpulumi(\s+-\S+)*\s+up\b|\bargocd\s+app\s+(sync|set|rollback|patch)\b|\bansible-playbook\b|\bdocker\s+push\b|\b(npm|pnpm|yarn|cargo|twine|gem)\s+publish\b|\bpsql\b|\bpgcli\b|\bmysql\b|\bmongo(sh)?\b|\bredis-cli\b|\b(alter|update|insert\s+into|create\s+(table|index))\b|\bmigrat|\balembic\s+upgrade\b|\bgh\s+(pr\s+merge|release|workflow\s+run)\b|\bfly\s+|\bvercel\b|\baws(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+[\w-]+\s+(delete|put|create|update|rm|cp|sync|restore|modify|reboot|stop|terminate|invoke)|\bgsutil(\s+-\w+)*\s+(cp|mv|rsync|acl|iam)\b|\bbq\s+(load|extract|cp|mk|update|insert)\b|\bgcloud\b.*\b(delete|deploy|create)\b|\bssh\b|\bscp\b|\brsync\b",
    },
    Class {
        score: 0.7,
        reason: "changes the project (commit, dependencies, files)",
        pattern: r"\bgit\s+(commit|merge|rebase|cherry-pick|tag|stash|checkout\s+-b|switch\s+-c|am|revert|rm|mv|reset)\b|\b(npm|pnpm|yarn|bun)(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(i|install|add|remove|uninstall|update|upgrade|up)\b|\bpip3?\s+(install|uninstall)\b|\buv\s+pip\s+(install|uninstall|sync)\b|\b(poetry|uv)\s+(add|remove|lock|update|sync)\b|\bcargo\s+insta\s+(accept|review|reject)\b|\bnbstripout\s+--(install|uninstall)\b|\bcargo\s+(add|remove|update|install)\b|\bgo\s+(get|mod)\b|\b(brew|apt|apt-get|dnf|yum)\s+(install|remove|upgrade)\b|\bsed\s+-i\b|\bmv\b|\bcp\s+-\w*r|\bchmod\b|\bchown\b|\bcurl\b.*\|\s*(ba)?sh|\bwget\b|\bdocker\s+(build|run|compose)\b|\bmake\s+install\b|\bln\s+-s|\btee\b|>\s*[\w./-]+",
    },
    Class {
        score: 0.7,
        reason: "prints a secret (into the session's transcript)",
        pattern: r"\b(echo|printf)\s[^|>;&]*\$\{?\w*(secret|token|passw|api_?key|private_?key|credential)|\bprintenv\s+\w*(secret|token|passw|api_?key|private_?key|credential)",
    },
    Class {
        score: 0.45,
        reason: "builds or tests",
        pattern: r"\bcargo\s+(build|test|clippy|bench|run|fmt|nextest|doc|deny|audit|llvm-cov|insta\s+test)\b|\b(npm|pnpm|yarn|bun)(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(run|test|build|exec|x|lint|typecheck|check|format|dev|start)\b|\bnpx\b|\bplaywright\b|\btflint\b|\bjupyter\s+nbconvert\b|\bpytest\b|\bpython3?\s|\bgo\s+(test|build|run|vet)\b|\bmake\b|\btsc\b|\beslint\b|\bprettier\b|\bjest\b|\bvitest\b|\bgradle\b|\bmvn\b|\bdotnet\b|\bmix\s+test\b|\bbundle\s+exec\b|\brake\b|\bnode\s",
    },
    Class {
        score: 0.15,
        reason: "looks around (read only)",
        pattern: r"^\s*(ls|ll|cat|pwd|echo|head|tail|less|more|wc|grep|rg|ag|find|fd|tree|which|whereis|type|file|stat|du|df|env|printenv|whoami|id|date|uname|ps|top|history|jq|diff|sort|uniq|cut|awk)\b|\bgit\s+(status|log|diff|show|branch|remote|fetch|blame|describe|rev-parse|ls-files|config\s+--get)\b|\bkubectl(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(get|describe|logs|top|explain|diff|config\s+(get|current))\b|\b(pip3?|uv\s+pip)\s+(freeze|list|show)\b|\bterraform(\s+-\S+)*\s+(plan|show|validate|fmt|output|state\s+(list|show|pull))\b|\baws(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+[\w-]+\s+(describe|list|get)-[\w-]+|\baws\s+s3\s+ls\b|\bgcloud\b.*\s(list|describe)\b|\bhelm(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(list|ls|status|history|get|show|template|lint|diff)\b|\bdocker\s+(ps|images|logs|inspect)\b|\b(npm|pnpm|yarn)\s+(ls|list|outdated|view|why)\b|\bcargo\s+(check|tree|metadata|search)\b|\bgh\s+(pr|issue)\s+(list|view|status|diff)\b",
    },
];

static COMPILED: LazyLock<Vec<(Regex, &'static Class)>> = LazyLock::new(|| {
    CLASSES
        .iter()
        .map(|c| (RegexBuilder::new(c.pattern).case_insensitive(true).multi_line(true).build().expect("salience patterns compile"), c))
        .collect()
});

/// Read-only subcommands of tools whose other subcommands change things. What they name is
/// looked at, not changed: `kubectl logs deploy/api` reads a deployment's logs (`deploy` there
/// is a resource kind, not a deploy).
static READS_THROUGH_A_WRITER: LazyLock<Regex> = LazyLock::new(|| {
    RegexBuilder::new(
        r"\b(migrate|migrations?)\s+(status|list|show|history|info|diff)\b|\balembic\s+(current|history|heads|show|check)\b|\bdocker\s+compose\s+(ps|logs|config|ls|images|top|version)\b|\bgit\s+stash\s+(list|show)\b|\bhelm\s+(dependency|dep)\s+list\b|\bkubectl(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(get|describe|logs|top|explain)\b",
    )
    .case_insensitive(true)
    .build()
    .expect("read pattern compiles")
});

/// Programs that only read what they are pointed at: whatever their paths name (`ls
/// migrations/`, `git log -- deploy/`), they look around. Not `find`, `echo` or `awk`, which can
/// delete or write.
static ONLY_READS: LazyLock<Regex> = LazyLock::new(|| {
    RegexBuilder::new(r"^\s*(ls|ll|cat|head|tail|less|more|wc|grep|rg|ag|fd|tree|file|stat|du|bat)\s|^\s*git\s+(status|log|diff|show|blame|ls-files)\b")
        .case_insensitive(true)
        .build()
        .expect("read pattern compiles")
});

/// Programs whose quoted arguments are text they search, print or record, not an action:
/// `grep -rn 'DROP TABLE' migrations/`, `git commit -m '... git push --force ...'`.
static QUOTES_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    RegexBuilder::new(r"^\s*(grep|egrep|fgrep|rg|ag|ack|echo|printf)\s|^\s*git\s+(commit|tag|log|grep|notes|stash\s+push)\b")
        .case_insensitive(true)
        .build()
        .expect("text pattern compiles")
});

/// The command line as it acts: the quoted text of a part that only searches, prints or records
/// it blanked out (byte for byte, so positions hold), for the classes here and the trigger
/// rules.
pub fn acting(command: &str) -> String {
    let scan = scan(command);
    let mut out = command.as_bytes().to_vec();
    for &(start, end, piped) in &scan.parts {
        let part = &command[start..end];
        // What `echo` or `printf` pipes on may run (`echo 'DROP TABLE t' | psql`).
        let runs_on = piped && matches!(part.split_whitespace().next(), Some("echo" | "printf"));
        if runs_on || !QUOTES_TEXT.is_match(part) {
            continue;
        }
        for &(from, to, quote) in scan.quoted.iter().filter(|(from, _, _)| (start..end).contains(from)) {
            // A secret stays, whatever carries it (`echo 'sk_live_...' >> config.js`): the
            // rules on secrets read it.
            let inner = &command[from..to];
            if crate::base::redact::redact_text(inner) != inner {
                continue;
            }
            // A variable in double quotes is expanded: what it holds is printed, not its name.
            let mut variable = false;
            for b in &mut out[from..to] {
                variable = quote == b'"' && (*b == b'$' || variable && (b.is_ascii_alphanumeric() || b"_{}".contains(b)));
                if !variable {
                    // Every byte of a character becomes a space: the text stays UTF-8.
                    *b = b' ';
                }
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| command.to_string())
}

/// Salience of a shell command: the highest class any part of it falls in.
pub fn of_command(command: &str) -> Salience {
    let acted = acting(command);
    let command = acted.trim();
    if command.is_empty() {
        return Salience { score: 0.15, reason: "does nothing" };
    }
    let segments = segments(command);
    // A tool that changes things asked only to report (`prisma migrate status`, `docker compose
    // ps`) looks around: such a part is left out of what the other classes read.
    // So is a program that only reads, unless its output goes to a file.
    let reports: Vec<bool> = segments.iter().map(|s| (READS_THROUGH_A_WRITER.is_match(s) || (ONLY_READS.is_match(s) && !s.contains('>'))) && !COMPILED[0].0.is_match(s)).collect();
    let acting = if reports.contains(&true) { segments.iter().zip(&reports).filter(|(_, r)| !**r).map(|(s, _)| *s).collect::<Vec<_>>().join("\n") } else { command.to_string() };
    let mut best: Option<&Class> = None;
    for (regex, class) in COMPILED.iter() {
        // Read-only is judged per segment: `ls && rm -rf x` is not a look around.
        let hit = if class.score < 0.2 { segments.iter().zip(&reports).all(|(s, r)| *r || regex.is_match(s)) } else { regex.is_match(&acting) };
        if hit && best.is_none_or(|b| class.score > b.score) {
            best = Some(class);
        }
    }
    match best {
        Some(c) => Salience { score: c.score, reason: c.reason },
        None => Salience { score: 0.5, reason: "runs a command" },
    }
}

/// The simple commands of a command line: split at newlines, `;`, `|` and `&` that stand outside
/// quotes, so that a `jq '.[] | select(...)'` filter stays in its command.
fn segments(command: &str) -> Vec<&str> {
    scan(command).parts.into_iter().map(|(start, end, _)| command[start..end].trim()).filter(|s| !s.is_empty()).collect()
}

/// A command line read once: where each simple command starts and ends (as [`segments`] splits
/// them) and whether a single `|` pipes its output on; and the text inside each pair of quotes
/// (without the quotes), with its quote.
struct Scan {
    parts: Vec<(usize, usize, bool)>,
    quoted: Vec<(usize, usize, u8)>,
}

fn scan(command: &str) -> Scan {
    let mut out = Scan { parts: Vec::new(), quoted: Vec::new() };
    let (mut start, mut quote, mut escaped, mut opened) = (0, None::<char>, false, 0);
    let bytes = command.as_bytes();
    for (i, c) in command.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => {
                out.quoted.push((opened, i, c as u8));
                quote = None;
            }
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some(_), _) => {}
            (None, '\'' | '"') => {
                quote = Some(c);
                opened = i + 1;
            }
            (None, '\n' | ';' | '|' | '&') => {
                let piped = c == '|' && bytes.get(i + 1) != Some(&b'|') && (i == 0 || bytes[i - 1] != b'|');
                out.parts.push((start, i, piped));
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if let Some(q) = quote {
        out.quoted.push((opened, command.len(), q as u8));
    }
    out.parts.push((start, command.len(), false));
    out
}

static SENSITIVE_PATH: LazyLock<Regex> = LazyLock::new(|| {
    RegexBuilder::new(
        r"(^|/)\.env|secret|credential|passw|\.pem$|\.key$|id_rsa|migrat|schema|\.sql$|\.github/workflows|\.gitlab-ci|jenkinsfile|dockerfile|docker-compose|/k8s/|/helm/|\.tf$|terraform|/auth|security|permission|payment|billing|package\.json$|cargo\.toml$|requirements[^/]*\.txt$|pyproject\.toml$|go\.mod$|\.lock$|lock\.json$|nginx|\.ya?ml$",
    )
    .case_insensitive(true)
    .build()
    .expect("path pattern compiles")
});

fn field<'a>(input: &'a Value, key: &str) -> &'a str {
    input.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Words that open a question asking for information.
const ASKS: &[&str] = &["what", "what's", "whats", "which", "where", "where's", "when", "why", "how", "how's", "who", "whose", "is", "are", "does", "do", "did", "was", "were", "has", "have"];

/// Phrases that ask for something to be done, wherever they stand in a prompt.
const REQUESTS: &[&str] = &["can you", "could you", "would you", "will you", "please", "just ", "go ahead", "let's", "lets ", "then "];

/// Salience of what the user typed: a request warrants advice; a question that only asks for
/// information ("which timezone do the pods run in?") much less, since nothing is done on it.
pub fn of_prompt(text: &str) -> Salience {
    let lower = text.trim().to_lowercase().replace('\u{2019}', "'");
    let first = |s: &str| s.split(|c: char| c.is_whitespace() || c == ',').find(|w| !w.is_empty()).unwrap_or("").to_string();
    // A short lead-in before a colon ("quick question: ...", "before I touch anything: ...")
    // leaves the question after it, when it ends as one.
    let after_lead = lower.split_once(':').filter(|(lead, rest)| lead.split_whitespace().count() <= 5 && rest.trim_end().ends_with('?')).map(|(_, rest)| first(rest));
    // "when" opens a standing instruction as often as a question ("when the PSP times out, park
    // the refund and retry"): it asks only when the prompt has a question mark.
    let asks = |w: &str| ASKS.contains(&w) && (w != "when" || lower.contains('?'));
    let opens = [Some(first(&lower)), after_lead].into_iter().flatten().any(|w| asks(&w));
    if opens && !REQUESTS.iter().any(|r| lower.contains(r)) {
        return Salience { score: 0.3, reason: "asks a question" };
    }
    Salience { score: 0.8, reason: "a request from the user" }
}

/// Salience of an event.
pub fn salience(event: &HookEvent) -> Salience {
    match event.kind {
        EventKind::UserPromptSubmit => return of_prompt(event.prompt.as_deref().unwrap_or("")),
        EventKind::SessionStart => return Salience { score: 0.5, reason: "start of a session" },
        _ => {}
    }
    let input = &event.tool_input;
    let tool = event.tool_name.as_deref().unwrap_or("");
    match tool {
        "Bash" => of_command(field(input, "command")),
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => {
            let path = [field(input, "file_path"), field(input, "notebook_path")].concat();
            if SENSITIVE_PATH.is_match(&path) {
                Salience { score: 0.8, reason: "changes a sensitive file (config, secrets, schema, CI, dependencies)" }
            } else {
                Salience { score: 0.6, reason: "changes a file" }
            }
        }
        t if cairn_proto::tools::looks_around(t) => Salience { score: 0.15, reason: "looks around (read only)" },
        "Task" => Salience { score: 0.5, reason: "hands work to a subagent" },
        "SlashCommand" | "ExitPlanMode" => Salience { score: 0.5, reason: "runs a command" },
        t if t.starts_with("mcp__") => {
            let verb = t.rsplit("__").next().unwrap_or("").to_lowercase();
            if ["delete", "drop", "remove", "destroy", "merge", "push", "deploy", "execute", "exec", "run", "query", "write", "update", "create", "send", "post"].iter().any(|v| verb.contains(v)) {
                Salience { score: 0.7, reason: "acts through an external tool" }
            } else if ["get", "list", "search", "read", "fetch", "find", "view", "describe"].iter().any(|v| verb.contains(v)) {
                Salience { score: 0.15, reason: "looks around (read only)" }
            } else {
                Salience { score: 0.5, reason: "uses an external tool" }
            }
        }
        _ => Salience { score: 0.5, reason: "uses a tool" },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(tool: &str, input: Value) -> HookEvent {
        HookEvent::from_payload(&json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input}))
    }

    #[test]
    fn commands_rank_by_consequence() {
        let s = |c: &str| of_command(c).score;
        for c in ["ls -la", "pwd", "git status", "git log --oneline -5", "cat README.md | head", "kubectl get pods -n x", "terraform plan", "kubectl -n x get pods", "kubectl --context=prod-eu describe pod a", "kubectl describe pod patch-runner", "kubectl get pod delete-me", "terraform -chdir=envs/shared plan", "terraform state list", "terraform -chdir=envs/prod state show aws_db_instance.main", "aws rds describe-db-clusters --db-cluster-identifier shop-prod", "aws --profile prod ecs list-services --cluster web", "aws s3 ls s3://shop-exports/", "gcloud sql instances describe shop-prod", "helm -n checkout status shop-api", "helm history shop-api"] {
            assert!(s(c) < 0.2, "{c}: {}", s(c));
        }
        for c in ["cargo test", "npm run build", "pytest -q"] {
            assert!((0.4..0.5).contains(&s(c)), "{c}: {}", s(c));
        }
        for c in ["git commit -m x", "npm install zod", "sed -i s/a/b/ f"] {
            assert!((0.65..0.75).contains(&s(c)), "{c}: {}", s(c));
        }
        for c in ["git push origin feature", "kubectl apply -f prod.yaml", "psql $URL -f alter.sql", "fly deploy", "kubectl --context prod-eu apply -f k8s/", "terraform -chdir=envs/prod apply", "terraform state rm module.db", "aws s3 cp dump.sql s3://shop-exports/", "aws rds describe-db-clusters && aws rds delete-db-cluster --db-cluster-identifier x", "cat db/migrations/002.sql | psql $DATABASE_URL"] {
            assert!((0.85..0.95).contains(&s(c)), "{c}: {}", s(c));
        }
        for c in ["rm -rf build", "git push --force origin main", "git reset --hard HEAD~3", "terraform destroy", "echo 'DROP TABLE users' | psql", "kubectl -n checkout delete pod a", "terraform -chdir=envs/shared destroy"] {
            assert_eq!(s(c), 1.0, "{c}");
        }
    }

    #[test]
    fn options_before_the_subcommand_and_other_tools_are_read() {
        let s = |c: &str| of_command(c).score;
        // Destroys data or history.
        for c in ["git switch -f main && git pull", "git checkout --force release", "git restore --source=HEAD --staged --worktree .", "git stash drop stash@{0}", "aws s3 rb s3://acme-terraform-state --force", "aws --profile prod s3 rm s3://b/k --recursive", "gsutil -m rm -r gs://exports/2024", "cd envs && terragrunt run-all destroy --terragrunt-non-interactive", "pulumi destroy --yes", "argocd app delete shop-api", "redis-cli -h cache FLUSHALL", "dropdb shop_dev", "bin/rails db:reset"] {
            assert_eq!(s(c), 1.0, "{c}");
        }
        // A report beside an act is as salient as the act.
        assert_eq!(s("npx prisma migrate status && npx prisma migrate reset --force"), 1.0);
        assert!((0.65..0.75).contains(&s("docker compose ps && docker compose up -d")));
        // Changes something shared.
        for c in ["kubectl cordon ip-10-42-7-118", "kubectl -n ops drain node-3 --ignore-daemonsets", "kubectl argo rollouts promote shop-api --full -n shop", "cd envs/staging/eks && terragrunt apply --terragrunt-non-interactive", "argocd app set shop-api-prod --helm-set rollout.strategy=rolling", "pgcli postgres://app@prod-db:5432/shop", "aws rds restore-db-instance-from-db-snapshot --db-instance-identifier x", "bq extract --destination_format=CSV pii.customers gs://exports/c.csv", "gsutil cp report.csv gs://partners/", "gh workflow run deploy.yml", "pulumi up"] {
            assert!((0.85..0.95).contains(&s(c)), "{c}: {}", s(c));
        }
        // Changes the project.
        for c in ["pnpm --filter web add dayjs", "yarn --cwd app add zod", "uv pip sync requirements.txt", "cargo insta accept --workspace", "nbstripout --uninstall", "git reset HEAD src/config.ts"] {
            assert!((0.65..0.75).contains(&s(c)), "{c}: {}", s(c));
        }
        // Builds or tests.
        for c in ["pnpm --filter web exec playwright test --retries=3", "pnpm --filter @acme/ui typecheck", "pnpm --filter web lint -- --max-warnings=0", "cargo llvm-cov --workspace --lcov", "cargo doc --no-deps -p billing-core", "tflint --recursive", "cargo deny check licenses"] {
            assert!((0.4..0.5).contains(&s(c)), "{c}: {}", s(c));
        }
        // Looks around, a pipe inside a quoted filter included.
        for c in ["ls migrations/versions/", "cat db/migrate/20261101_rename.rb", "kubectl logs deploy/checkout-api --tail=200", "kubectl --context prod-eu-1 -n checkout logs deploy/checkout-api --since=30m", "kubectl describe deploy/api -n shop", "kubectl get deploy -n shop -o wide", "wc -l migrations/*.py", "tree db/migrations", "less deploy/README.md", "git log -- deploy/", "npx prisma migrate status", "docker compose ps", "docker compose logs api --tail 50 | grep ERROR", "alembic current", "git stash list", "terraform -chdir=envs/staging show -json staging.tfplan | jq '.resource_changes[] | select(.change.actions != [\"no-op\"]) | .address'", "kubectl diff -f k8s/hpa.yaml", ".venv/bin/pip freeze | grep -i pandas", "uv pip list"] {
            assert!(s(c) < 0.2, "{c}: {}", s(c));
        }
    }

    #[test]
    fn a_command_line_splits_outside_quotes() {
        assert_eq!(segments("a | b; c && d\ne"), vec!["a", "b", "c", "d", "e"]);
        assert_eq!(segments("jq '.a | .b' f | head"), vec!["jq '.a | .b' f", "head"]);
        assert_eq!(segments(r#"echo "x; y" \| z & w"#), vec![r#"echo "x; y" \| z"#, "w"]);
        assert_eq!(segments("echo 'unclosed | q"), vec!["echo 'unclosed | q"]);
        assert!(segments("  ;; | ").is_empty());
    }

    proptest::proptest! {
        #[test]
        fn any_command_line_is_read(c in "\\PC{0,120}") {
            let s = of_command(&c);
            proptest::prop_assert!((0.0..=1.0).contains(&s.score));
            for seg in segments(&c) {
                proptest::prop_assert!(c.contains(seg) && !seg.is_empty());
            }
            // The command as it acts keeps every position.
            proptest::prop_assert_eq!(acting(&c).len(), c.len());
        }
    }

    #[test]
    fn text_that_is_searched_printed_or_recorded_is_not_an_action() {
        for c in ["grep -rn 'DROP TABLE' migrations/", "rg \"kubectl delete\" scripts/"] {
            assert!(of_command(c).score < READ_ONLY_CEILING, "{c}: {:?}", of_command(c));
        }
        assert_eq!(of_command("git commit -m 'docs: explain why we never run DROP TABLE in prod'").score, 0.7);
        assert_eq!(acting("grep -n 'rm -rf' a.sh | wc -l"), "grep -n '      ' a.sh | wc -l");
        let secret = "echo 'STRIPE_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc' >> config.env";
        assert_eq!(acting(secret), secret, "a secret is never blanked out");
        // Quoted text that runs is an action.
        for c in ["psql -c 'DROP TABLE users'", "bash -c 'rm -rf $DIR'", "echo 'DROP TABLE users' | psql", "git commit -m x && git push --force origin main"] {
            assert!(of_command(c).score >= 0.9, "{c}: {:?}", of_command(c));
        }
        // Printing a secret is no look around.
        for c in ["echo $AWS_SECRET_ACCESS_KEY", "echo \"token=$GITHUB_TOKEN\"", "printenv STRIPE_API_KEY"] {
            assert!(of_command(c).score >= READ_ONLY_CEILING, "{c}: {:?}", of_command(c));
        }
        assert!(of_command("echo $HOME").score < READ_ONLY_CEILING);
    }

    #[test]
    fn a_compound_command_is_as_salient_as_its_worst_part() {
        assert_eq!(of_command("ls && rm -rf dist").score, 1.0);
        assert!(of_command("git status && git diff").score < 0.2);
        assert_eq!(of_command("unknown-tool --flag").reason, "runs a command");
    }

    #[test]
    fn tools_have_their_own_salience() {
        assert!(salience(&ev("Read", json!({"file_path": "/a/README.md"}))).score < 0.2);
        assert_eq!(salience(&ev("Edit", json!({"file_path": "/a/src/button.tsx"}))).score, 0.6);
        assert_eq!(salience(&ev("Write", json!({"file_path": "/a/.env"}))).score, 0.8);
        assert_eq!(salience(&ev("Edit", json!({"file_path": "/a/db/migrations/001.sql"}))).score, 0.8);
        assert_eq!(salience(&ev("mcp__github__merge_pull_request", json!({}))).score, 0.7);
        assert!(salience(&ev("mcp__github__list_issues", json!({}))).score < 0.2);
        let prompt = HookEvent::from_payload(&json!({"hook_event_name": "UserPromptSubmit", "prompt": "ship it"}));
        assert_eq!(salience(&prompt).score, 0.8);
    }

    #[test]
    fn a_question_that_only_asks_is_less_salient_than_a_request() {
        for q in ["what does the backoff helper in src/net do?", "Which region do the workers run in, and where do we set it?", "how's the session cookie signed?", "quick question: where do the fixtures come from?", "when does the nightly export run?"] {
            assert_eq!(of_prompt(q).reason, "asks a question", "{q}");
        }
        for r in ["how many rows are stale? just log into the primary and delete them", "can you bump the api to node 22?", "is the cache warm? if not, please flush it", "rename the flag to beta_checkout", "what's left, then ship it", "deploy the worker to staging: what we merged today needs a soak", "when refund calls time out, don't fail the request. park them and replay them later"] {
            assert_eq!(of_prompt(r).score, 0.8, "{r}");
        }
    }
}

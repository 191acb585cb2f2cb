//! Trigger rules in Spark's YAML format (`rules:` and `learned:`), parsed and validated, the
//! rules cairn ships built in, and matching. A rule's pattern is a regex matched
//! case-insensitively against the raw tool input (command, file path, content; an edit's
//! replaced text is left out), never against the extracted intent; `surface` names memory ids or `category:NAME` (the advisor picks the
//! most relevant memory of that category). This module owns the file format and its errors (with
//! line numbers). Pure; no I/O.

use std::collections::BTreeSet;

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

/// How urgent a rule's advice is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Critical,
    High,
    #[default]
    Normal,
    Background,
}

impl Priority {
    /// 0 for critical up to 3 for background.
    pub fn index(self) -> usize {
        match self {
            Priority::Critical => 0,
            Priority::High => 1,
            Priority::Normal => 2,
            Priority::Background => 3,
        }
    }

    pub fn name(self) -> &'static str {
        ["critical", "high", "normal", "background"][self.index()]
    }
}

/// One rule as written in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleSpec {
    pub name: String,
    pub pattern: String,
    #[serde(default)]
    pub surface: Vec<String>,
    #[serde(default)]
    pub priority: Priority,
    /// Opt-in: a critical rule may block the tool call.
    #[serde(default)]
    pub interrupt: bool,
    /// A regex that keeps the rule quiet when the raw input matches it too: the safe form of
    /// what the pattern catches (`--context` named on a `kubectl apply`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unless: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RulesFile {
    #[serde(default)]
    pub rules: Vec<RuleSpec>,
    #[serde(default)]
    pub learned: Vec<RuleSpec>,
}

/// A validated rule with its compiled pattern.
#[derive(Debug, Clone)]
pub struct TriggerRule {
    pub spec: RuleSpec,
    pub regex: Regex,
    /// `spec.unless`, compiled.
    pub unless: Option<Regex>,
    pub learned: bool,
}

#[derive(Debug, Clone, Default)]
pub struct TriggerRules {
    pub rules: Vec<TriggerRule>,
    pub unknown_keys: Vec<String>,
}

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum RulesError {
    #[error("{file}: line {line} column {column}: {message}")]
    Parse { file: String, line: usize, column: usize, message: String },
    #[error("{file}: line {line}: rule {name:?}: {message}")]
    Invalid { file: String, line: usize, name: String, message: String },
    #[error("{file}: cannot read: {message}")]
    Read { file: String, message: String },
}

/// The 1-based line where `needle` appears in `text` for the `nth` time (0 = first), for pointing
/// at a bad rule; 0 when it does not.
fn line_of(text: &str, needle: &str, nth: usize) -> usize {
    if needle.is_empty() {
        return 0;
    }
    text.match_indices(needle).nth(nth).map_or(0, |(at, _)| text[..at].matches('\n').count() + 1)
}

/// The 1-based line of the `index`-th item of the block list under `section:` at the top level
/// (`rules:` or `learned:`), or of the section itself when its items cannot be told apart
/// (a flow list); `None` without the section.
fn item_line(text: &str, section: &str, index: usize) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| l.trim_end().strip_prefix(section).is_some_and(|rest| rest.trim_start().starts_with(':')) && !l.starts_with([' ', '\t']))?;
    let mut indent = None;
    let mut seen = 0;
    for (n, l) in lines.iter().enumerate().skip(header + 1) {
        let trimmed = l.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let at = l.len() - trimmed.len();
        if at == 0 && !trimmed.starts_with('-') {
            break;
        }
        if trimmed.starts_with('-') && indent.is_none_or(|i| i == at) {
            indent = Some(at);
            if seen == index {
                return Some(n + 1);
            }
            seen += 1;
        }
    }
    Some(header + 1)
}

impl TriggerRules {
    pub fn parse(text: &str, file: &str) -> Result<TriggerRules, RulesError> {
        if text.trim().is_empty() {
            return Ok(TriggerRules::default());
        }
        let mut unknown = BTreeSet::new();
        let de = serde_yaml_ng::Deserializer::from_str(text);
        let parsed: RulesFile = serde_ignored::deserialize(de, |path| {
            unknown.insert(path.to_string());
        })
        .map_err(|e| {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            RulesError::Parse { file: file.to_string(), line, column, message: e.to_string() }
        })?;
        let mut names: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        let mut rules = Vec::new();
        let rules_in = |section: &'static str, list: Vec<RuleSpec>, learned: bool| list.into_iter().enumerate().map(move |(i, r)| (r, learned, section, i));
        for (spec, learned, section, index) in rules_in("rules", parsed.rules, false).chain(rules_in("learned", parsed.learned, true)) {
            // The n-th rule of this name is (at best) the n-th place the name is written; else
            // the rule's item in its list; else the list itself.
            let seen = *names.get(&spec.name).unwrap_or(&0);
            let by_name = if spec.name.trim().is_empty() {
                0
            } else {
                [format!("name: {}", spec.name), format!("name: \"{}\"", spec.name), format!("name: '{}'", spec.name), spec.name.clone()]
                    .iter()
                    .map(|needle| line_of(text, needle, seen))
                    .find(|l| *l > 0)
                    .unwrap_or(0)
            };
            let line = Some(by_name).filter(|l| *l > 0).or_else(|| item_line(text, section, index)).unwrap_or(1);
            let invalid = |message: String| RulesError::Invalid { file: file.to_string(), line, name: spec.name.clone(), message };
            if spec.name.trim().is_empty() {
                return Err(invalid("every rule needs a name".into()));
            }
            if seen > 0 {
                return Err(invalid("the name is used by another rule".into()));
            }
            names.insert(spec.name.clone(), seen + 1);
            let compile = |pattern: &str, what: &str| RegexBuilder::new(pattern).case_insensitive(true).size_limit(1 << 20).build().map_err(|e| invalid(format!("{what} does not compile: {e}")));
            let regex = compile(&spec.pattern, "pattern")?;
            if spec.pattern.is_empty() {
                return Err(invalid("the pattern is empty and would match everything".into()));
            }
            let unless = match spec.unless.as_deref() {
                Some("") => return Err(invalid("`unless` is empty and would keep the rule quiet always".into())),
                Some(p) => Some(compile(p, "`unless`")?),
                None => None,
            };
            for target in &spec.surface {
                if let Some(category) = target.strip_prefix("category:") {
                    if category.trim().is_empty() {
                        return Err(invalid("surface `category:` needs a category name".into()));
                    }
                } else if target.trim().is_empty() || target.chars().any(char::is_whitespace) {
                    return Err(invalid(format!("surface {target:?} is neither a memory id nor category:NAME")));
                }
            }
            if spec.interrupt && spec.priority != Priority::Critical {
                return Err(invalid("only a critical rule may interrupt".into()));
            }
            rules.push(TriggerRule { spec, regex, unless, learned });
        }
        Ok(TriggerRules { rules, unknown_keys: unknown.into_iter().collect() })
    }

    /// Reads `path` (a regular file, bounded); a missing file means no rules from the user.
    pub fn load(path: &std::path::Path) -> Result<TriggerRules, RulesError> {
        let file = path.display().to_string();
        match cairn_proto::files::read_text(path, super::table::MAX_FILE_BYTES) {
            Ok(text) => Self::parse(&text, &file),
            Err(e) if e.is_missing() => Ok(TriggerRules::default()),
            Err(e) => Err(RulesError::Read { file, message: e.to_string() }),
        }
    }
}

/// Rules cairn applies without any file: destructive commands (a recursive delete of a path from a
/// variable, a glob, home, root or a parent folder; a hard reset; dropping tables; deleting
/// cluster resources or infrastructure), secrets in the input, a secret from the environment
/// printed (echoed to the terminal or a file, not piped into the command that needs it), a file
/// that holds secrets (`.env`, a private key, a credentials file) staged for a commit, a
/// database client pointed at production, force-pushing a shared branch (main, master, trunk,
/// develop, release*, prod*, or the current branch when none is named), deployment, and SQL
/// built by pasting values into the query text (an untagged template's `${...}`, `+ var`,
/// `'%s'` or `"..." % x`, an f-string's `{var}`, Ruby's `#{...}`; a tagged template such as
/// `` sql`...${id}` `` binds its values and is left alone).
/// A rule of the user's with the same name replaces one of these; `triggers.builtin_rules: false`
/// turns them all off.
pub const BUILTIN: &str = r#"
rules:
  - name: destructive_command
    pattern: '\brm\s+(-\w+\s+)*-\w*(rf|fr)\w*(\s+[^\s;&|]+)*?\s+["'']?([/~]|[^\s;&|]*[$*]|[^\s;&|]*\.\.)|\bgit\s+(reset\s+--hard|clean\s+-\w*f)|\b(drop|truncate)\s+(table|database|schema)\b|\bdelete\s+from\s+\w+\s*(;|$)|\bkubectl(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+delete\b|\bterraform(\s+-\S+)*\s+(destroy|apply\b[^\n;&|]*\s-destroy)\b|\bhelm(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(uninstall|delete)\b|\bdocker\s+(system\s+prune|volume\s+rm)\b'
    surface: [category:destructive]
    priority: critical
  - name: secret_in_input
    pattern: '\b[spr]k_(live|test)_[0-9a-z]{8,}|\bsk-(proj-|ant-)?[0-9A-Za-z_-]{20,}|\bAKIA[0-9A-Z]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY-----|\bgh[pousr]_[0-9A-Za-z]{20,}|\bxox[abprs]-[0-9A-Za-z-]{10,}|\b\w*(api[_-]?key|secret|passw(or)?d|access[_-]?token|auth[_-]?token)\w*["'']?\s*[:=]\s*["''][^"''\s$]{8,}["'']|\b\w*(api[_-]?key|secret|passw(or)?d|token)\w*\s*=\s*[A-Za-z0-9/+_.-]{6,}[0-9][A-Za-z0-9/+_.-]{4,}'
    surface: [category:security]
    priority: high
  - name: secret_printed
    pattern: '\b(echo|printf)\b[^\n;&|]*\$\{?\w*(token|secret|passw(or)?d|api[_-]?key|private[_-]?key|credentials?)\w*\}?[^\n;&|]*($|[;&\n])'
    surface: [category:security]
    priority: high
  - name: secret_committed
    pattern: '\bgit\s+add\b[^\n;&|]*[\s/](\.env(\.(local|prod\w*|dev\w*|staging|test))?|[\w.-]*\.(pem|p12|pfx|jks|keystore)|id_(rsa|dsa|ecdsa|ed25519)|credentials\.json|service-account[\w.-]*\.json|\.npmrc|\.pypirc|\.netrc)(\s|$|[;&|\n])'
    surface: [category:security]
    priority: high
  - name: production_database
    pattern: '\b(psql|mysql|mariadb|mongosh?|redis-cli|pg_dump|pg_restore|sqlcmd|clickhouse-client)\b[^\n;&|]*(\$\{?\w*prod\w*|\bprod(uction)?\b|\w-prod\b|\bprod-\w)'
    surface: [category:database]
    priority: high
  - name: force_push
    pattern: '\bgit\s+push\b[^;&|\n]*\s(--force|--force-with-lease|-f)\b([^;&|\n]*\b(main|master|trunk|develop|release[\w/.-]*|prod\w*|production)\b|(\s+[\w.-]+)?\s*($|[;&|\n]))|\bgit\s+push\b[^;&|\n]*\s\+(main|master|trunk|develop|release[\w/.-]*|prod\w*)\b'
    surface: [category:git]
    priority: critical
  - name: sql_built_from_input
    pattern: '(^|[^\w$.`])`\s*(select\s[^`]*\sfrom|insert\s+into|update\s+\w+\s+set|delete\s+from)\b[^`]*\$\{|\b(select\s[^;\n]*\sfrom|insert\s+into|update\s+\w+\s+set|delete\s+from)\b[^;\n]*("\s*\+\s*\w|''\s*\+\s*\w|%s''|''\{\w+\}|#\{)|\b(select|insert|update|delete)\b[^;\n]*%s[^;\n]*["'']\s*%\s*[\w(]|\bf["'']\s*(select\s[^"''\n]*\sfrom|insert\s+into|update\s+\w+\s+set|delete\s+from)\b[^"''\n]*\{\w+'
    surface: [category:security]
    priority: high
  - name: production_deploy
    pattern: '\bdeploy\w*\b[^\n]*\b(prod|production|live)\b|\bkubectl(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(apply|rollout)\b|\bhelm(\s+-{1,2}[\w-]+(=\S+|\s+[^-\s]\S*)?)*\s+(upgrade|install)\b|\bterraform(\s+-\S+)*\s+apply\b|\bfly\s+deploy\b|\bvercel\b[^\n]*--prod\b|\bserverless\s+deploy\b'
    surface: [category:deployment]
    priority: high
"#;

/// The built-in rules, compiled once.
pub fn builtin() -> &'static [TriggerRule] {
    static RULES: std::sync::LazyLock<Vec<TriggerRule>> =
        std::sync::LazyLock::new(|| TriggerRules::parse(BUILTIN, "built-in rules").expect("built-in rules are valid").rules);
    &RULES
}

/// The rules in force: the built-in ones (unless turned off or replaced by a rule of the same
/// name) and then the user's.
pub fn effective(user: &[TriggerRule], with_builtin: bool) -> Vec<TriggerRule> {
    let mut out: Vec<TriggerRule> = if with_builtin {
        builtin().iter().filter(|b| !user.iter().any(|u| u.spec.name == b.spec.name)).cloned().collect()
    } else {
        Vec::new()
    };
    out.extend(user.iter().cloned());
    out
}

/// A rule that matched, with the text it matched.
#[derive(Debug, Clone)]
pub struct Match<'a> {
    pub rule: &'a TriggerRule,
    pub matched: String,
}

/// The rules whose pattern matches `raw` (the raw tool input), and whose `unless` does not, in
/// rule order.
pub fn matches<'a>(rules: &'a [TriggerRule], raw: &str) -> Vec<Match<'a>> {
    rules
        .iter()
        .filter_map(|rule| {
            let m = rule.regex.find(raw)?;
            if rule.unless.as_ref().is_some_and(|u| u.is_match(raw)) {
                return None;
            }
            let matched: String = m.as_str().chars().take(60).collect();
            Some(Match { rule, matched: matched.trim().to_string() })
        })
        .collect()
}

/// The rules whose pattern matches `raw` and whose `unless` does too: `raw` is the safe form of
/// what they catch.
pub fn safe_forms<'a>(rules: &'a [TriggerRule], raw: &'a str) -> impl Iterator<Item = &'a TriggerRule> + 'a {
    rules.iter().filter(move |rule| rule.unless.as_ref().is_some_and(|u| u.is_match(raw)) && rule.regex.is_match(raw))
}

/// The commented file `cairn config init` writes.
pub const TEMPLATE: &str = r#"# cairn trigger rules (Spark's format). Edited live: cairn reloads this file on save, and
# keeps the last good rules if a save does not parse.
#
# Each rule: a regex `pattern`, matched case-insensitively against the raw tool input (the
# command, the file path, the content; of an edit, the new text, not the text it replaces), and what to `surface` when it matches: memory ids, or
# `category:NAME` for the most relevant memory of that category. `priority` is critical, high,
# normal or background; `interrupt: true` (critical rules only) may block the tool call.
# `unless`, a second regex, keeps the rule quiet when the input matches it too (the safe form
# of what the pattern catches).
#
# rules:
#   - name: force_push
#     pattern: 'git\s+push\s+.*(--force|-f\b)'
#     surface: [category:git]
#     priority: critical
#   - name: production_deploy
#     pattern: 'deploy.*(prod|production)'
#     surface: [category:deployment]
#     priority: high
rules: []

# Rules cairn learns itself land here.
learned: []
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_spark_format() {
        let text = "rules:\n  - name: force_push\n    pattern: 'git push .*--force'\n    surface: [category:git, mem-1]\n    priority: critical\n    interrupt: true\nlearned:\n  - name: learned_one\n    pattern: 'terraform apply'\n";
        let r = TriggerRules::parse(text, "t.yaml").unwrap();
        assert_eq!(r.rules.len(), 2);
        assert!(r.rules[0].regex.is_match("GIT PUSH origin --force"), "case-insensitive");
        assert_eq!(r.rules[0].spec.priority, Priority::Critical);
        assert!(r.rules[1].learned);
        assert_eq!(r.rules[1].spec.priority, Priority::Normal);
    }

    #[test]
    fn unless_keeps_a_rule_quiet_on_the_safe_form() {
        let r = TriggerRules::parse("rules:\n  - name: apply\n    pattern: 'kubectl\\s+apply'\n    unless: '--context[=\\s]'\n    surface: [m1]\n", "rules.yaml").unwrap();
        let hit = |raw: &str| matches(&r.rules, raw).len();
        assert_eq!((hit("kubectl apply -f k8s/"), hit("kubectl apply -f k8s/ --CONTEXT=kind-dev")), (1, 0), "case-insensitive like the pattern");
        // The safe form is told apart from an input the pattern does not match at all.
        assert_eq!(safe_forms(&r.rules, "kubectl apply -f k8s/ --context kind-dev").count(), 1);
        assert_eq!(safe_forms(&r.rules, "kubectl get pods --context kind-dev").count(), 0);
        assert!(r.unknown_keys.is_empty());
        let bad = |unless: &str| TriggerRules::parse(&format!("rules:\n  - name: apply\n    pattern: apply\n    unless: '{unless}'\n"), "rules.yaml").unwrap_err().to_string();
        assert!(bad("(").contains("`unless` does not compile"), "{}", bad("("));
        assert!(bad("").contains("`unless` is empty"), "{}", bad(""));
    }

    #[test]
    fn builtin_rules_catch_what_they_are_for() {
        let hit = |raw: &str| -> Vec<String> { matches(builtin(), raw).into_iter().map(|m| m.rule.spec.name.clone()).collect() };
        for raw in ["rm -rf $BUILD_DIR/", "rm -fr ~/tmp", "rm -rf \"$DIST\"/*", "rm -rf /var/lib/app", "rm -rf ../shared", "git reset --hard HEAD~2", "psql -c 'DROP TABLE users'", "kubectl delete ns checkout", "terraform destroy -auto-approve"] {
            assert_eq!(hit(raw), vec!["destructive_command"], "{raw}");
        }
        // Global options before the subcommand do not hide it.
        for raw in ["terraform -chdir=envs/shared destroy", "kubectl -n analytics delete pvc --all", "kubectl --context prod-eu delete deployment api", "helm -n checkout uninstall shop"] {
            assert_eq!(hit(raw), vec!["destructive_command"], "{raw}");
        }
        // A destroy run through apply is both a deployment and a destruction.
        assert_eq!(hit("terraform -chdir=envs/shared apply -destroy"), vec!["destructive_command", "production_deploy"]);
        for raw in ["kubectl get pods -n checkout", "kubectl logs api-7f9 | grep delete", "kubectl get pod delete-me-7f9", "kubectl -n x describe job apply-migrations", "helm list -n checkout", "helm status uninstall-test", "terraform -chdir=envs/shared plan"] {
            assert!(hit(raw).is_empty(), "{raw}: {:?}", hit(raw));
        }
        for raw in ["git push --force origin main", "git push -f", "git push origin +main", "git push --force-with-lease", "git push -f origin release/2.4", "git push --force origin"] {
            assert_eq!(hit(raw), vec!["force_push"], "{raw}");
        }
        // SQL built by pasting a value into the query text, in several languages; bound
        // parameters are not.
        for raw in [
            "const rows = await db.query(`SELECT * FROM customers WHERE full_name = '${req.query.name}'`);",
            "String q = \"SELECT id FROM users WHERE email = '\" + email + \"'\";",
            "cur.execute(\"UPDATE orders SET note = '%s'\" % note)",
            "ActiveRecord::Base.connection.execute(\"DELETE FROM carts WHERE user_id = #{params[:id]}\")",
        ] {
            assert_eq!(hit(raw), vec!["sql_built_from_input"], "{raw}");
        }
        for raw in [
            "cur.execute(f\"SELECT * FROM items WHERE name = {name}\")",
            "cur.execute(\"SELECT * FROM t WHERE a = %s\" % a)",
        ] {
            assert_eq!(hit(raw), vec!["sql_built_from_input"], "{raw}");
        }
        for raw in [
            "db.query('SELECT * FROM customers WHERE id = $1', [id])",
            "cur.execute(\"SELECT * FROM t WHERE id = %s\", (id,))",
            "conn.execute(\"INSERT INTO t (a) VALUES (?)\", params![a])",
            "const rows = await sql`SELECT * FROM users WHERE id = ${id}`",
            "await prisma.$queryRaw`SELECT * FROM users WHERE email = ${email}`",
        ] {
            assert!(hit(raw).is_empty(), "{raw}: {:?}", hit(raw));
        }
        // A routine cleanup of a literal relative path, and force-pushing one's own branch.
        for raw in [
            "rm -rf node_modules/.cache dist",
            "rm -rf build && ls /tmp",
            "git push --force origin wip/dima-scratch",
            "git push -f origin feature/cart",
            "git push origin feature-x && rm -f out.txt",
            "password = os.environ.get(\"DB_PASSWORD\")",
            "api_key: process.env.STRIPE_KEY",
        ] {
            assert!(hit(raw).is_empty(), "{raw}: {:?}", hit(raw));
        }
        for raw in [
            "const key = 'sk_live_abcdef123456';",
            "AWS_KEY=AKIAABCDEFGHIJKLMNOP",
            "api_key: \"abcdefghijklmnop\"",
            "-----BEGIN RSA PRIVATE KEY-----",
            "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI7K7MDENGbPxRfiCY9EXAMPLE",
            "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx",
            "DB_PASSWORD=hunter2hunter2x9",
            "client_secret = \"s3cr3t-value-here\"",
        ] {
            assert_eq!(hit(raw), vec!["secret_in_input"], "{raw}");
        }
        for raw in ["kubectl apply -f k8s/prod", "helm upgrade shop ./chart", "terraform apply", "npm run deploy -- --env production", "fly deploy", "terraform -chdir=envs/prod apply", "kubectl --context prod-eu apply -f k8s/", "helm -n shop upgrade --install shop ./chart"] {
            assert_eq!(hit(raw), vec!["production_deploy"], "{raw}");
        }
        // A secret from the environment printed where it stays (a log, the terminal), not piped
        // into the command that needs it.
        for raw in ["echo \"token: $DEPLOY_TOKEN\" >> deploy.log && ./deploy.sh", "echo $GITHUB_TOKEN", "printf '%s\\n' \"${DB_PASSWORD}\" > creds.txt"] {
            assert_eq!(hit(raw), vec!["secret_printed"], "{raw}");
        }
        for raw in ["echo $GITHUB_TOKEN | gh auth login --with-token", "echo \"deploying $VERSION\"", "echo \"$API_KEY\" | docker login --password-stdin"] {
            assert!(hit(raw).is_empty(), "{raw}: {:?}", hit(raw));
        }
        // A file that holds secrets staged for a commit; a template of one is not.
        for raw in ["git add .env && git commit -m 'add env'", "git add .env config/", "git add apps/api/.env.production", "git add certs/server.pem", "git add ~/.ssh/id_ed25519", "git add keys/service-account.json"] {
            assert_eq!(hit(raw), vec!["secret_committed"], "{raw}");
        }
        for raw in ["git add .env.example", "git add src/env.ts", "git add .envrc.sample docs/", "git add -A", "cat .env", "git add README.md && git commit -m 'document .env'"] {
            assert!(hit(raw).is_empty(), "{raw}: {:?}", hit(raw));
        }
        // A database client pointed at production; a local or staging one is not.
        for raw in ["psql \"$PROD_DATABASE_URL\" -f migrate.sql", "mysql -h db-prod -e 'select 1'", "psql -h prod-db.internal shop", "redis-cli -h cache.production.internal FLUSHALL"] {
            assert_eq!(hit(raw), vec!["production_database"], "{raw}");
        }
        for raw in ["psql postgres://localhost:5432/shop_dev -c 'select 1'", "psql \"$STAGING_DATABASE_URL\"", "mysql -u root shop_test", "psql -f products.sql"] {
            assert!(hit(raw).is_empty(), "{raw}: {:?}", hit(raw));
        }
        for raw in ["ls -la", "git push origin feature-x", "rm notes.txt", "kubectl get pods", "terraform plan", "api_key = os.environ['API_KEY']", "git status"] {
            assert!(hit(raw).is_empty(), "{raw}: {:?}", hit(raw));
        }
    }

    #[test]
    fn user_rules_replace_builtin_ones_by_name() {
        let user = TriggerRules::parse("rules:\n  - name: force_push\n    pattern: 'push --force'\n    surface: [m1]\n    priority: high\n", "t.yaml").unwrap().rules;
        let all = effective(&user, true);
        assert_eq!(all.iter().filter(|r| r.spec.name == "force_push").count(), 1);
        assert_eq!(all.iter().find(|r| r.spec.name == "force_push").unwrap().spec.surface, vec!["m1".to_string()]);
        assert_eq!(all.len(), builtin().len());
        assert_eq!(effective(&user, false).len(), 1);
    }

    #[test]
    fn the_template_parses() {
        let r = TriggerRules::parse(TEMPLATE, "t.yaml").unwrap();
        assert!(r.rules.is_empty());
        assert!(TriggerRules::parse("", "t.yaml").unwrap().rules.is_empty());
    }

    #[test]
    fn errors_name_the_line() {
        let err = TriggerRules::parse("rules:\n  - name: a\n    pattern: [unclosed\n", "t.yaml").unwrap_err();
        assert!(matches!(err, RulesError::Parse { line: 3, .. } | RulesError::Parse { line: 4, .. }), "{err:?}");

        let err = TriggerRules::parse("rules:\n  - name: ok\n    pattern: fine\n  - name: broken\n    pattern: '(oops'\n", "t.yaml").unwrap_err();
        assert!(err.to_string().contains("line 4") && err.to_string().contains("does not compile"), "{err}");

        let err = TriggerRules::parse("rules:\n  - name: a\n    pattern: x\n    priority: urgent\n", "t.yaml").unwrap_err();
        assert!(err.to_string().contains("line 4"), "{err}");
    }

    #[test]
    fn rejects_bad_rules() {
        let bad = [
            ("rules:\n  - name: a\n    pattern: x\n  - name: a\n    pattern: y\n", "line 4: rule \"a\": the name is used by another rule"),
            ("rules:\n  - name: a\n    pattern: ''\n", "empty"),
            ("rules:\n  - name: a\n    pattern: x\n    surface: ['category:']\n", "category name"),
            ("rules:\n  - name: a\n    pattern: x\n    interrupt: true\n", "only a critical rule"),
        ];
        for (text, expected) in bad {
            let err = TriggerRules::parse(text, "t.yaml").unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }

    #[test]
    fn unknown_keys_are_reported() {
        let r = TriggerRules::parse("rules:\n  - name: a\n    pattern: x\n    description: why\nextra: 1\n", "t.yaml").unwrap();
        assert_eq!(r.unknown_keys, vec!["extra".to_string(), "rules.0.description".to_string()]);
    }

    /// A rule refused without a name to find it by is pointed at by its item in the list
    /// (found by the property test below: it said line 0).
    #[test]
    fn a_nameless_rule_is_pointed_at_by_its_item() {
        let text = "rules:\n  - name: ok\n    pattern: a\n  - name: ''\n    pattern: b\nlearned:\n  - pattern: c\n    name: x\n  - pattern: d\n    name: y\n";
        match TriggerRules::parse(text, "r.yaml") {
            Err(RulesError::Invalid { line, message, .. }) => assert_eq!((line, message.as_str()), (4, "every rule needs a name")),
            other => panic!("{other:?}"),
        }
        assert_eq!(item_line(text, "learned", 1), Some(9));
        assert_eq!(item_line("rules: [{name: a}]", "rules", 0), Some(1), "a flow list: the section's line");
        assert_eq!(item_line("other: 1", "rules", 0), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::base::fuzz_cases(256)))]

        /// Any text: rules or an error naming the file, never a panic.
        #[test]
        fn any_text_is_rules_or_an_error(text in "\\PC{0,300}") {
            if let Err(e) = TriggerRules::parse(&text, "r.yaml") {
                proptest::prop_assert!(e.to_string().starts_with("r.yaml: "), "{}", e);
            }
        }

        /// Rule files of the right shape with fields of any content: every rule taken compiles
        /// and matches its own file's patterns without a panic; a rule refused is named with a
        /// line.
        #[test]
        fn rule_files_with_any_fields(
            rules in proptest::collection::vec((
                "[a-z_]{0,10}",
                "\\PC{0,20}",
                proptest::sample::select(vec!["critical", "high", "medium", "low", "urgent", ""]),
                proptest::prelude::any::<bool>(),
                proptest::collection::vec("[a-z:0-9-]{0,12}", 0..3),
            ), 0..5),
            probe in "\\PC{0,40}",
        ) {
            let mut text = String::from("rules:\n");
            for (name, pattern, priority, interrupt, surface) in &rules {
                let quoted = |s: &str| format!("'{}'", s.replace('\'', "''"));
                text.push_str(&format!("  - name: {}\n    pattern: {}\n", quoted(name), quoted(pattern)));
                if !priority.is_empty() {
                    text.push_str(&format!("    priority: {priority}\n"));
                }
                text.push_str(&format!("    interrupt: {interrupt}\n    surface: [{}]\n", surface.iter().map(|s| quoted(s)).collect::<Vec<_>>().join(", ")));
            }
            match TriggerRules::parse(&text, "r.yaml") {
                Ok(parsed) => {
                    let _ = matches(&parsed.rules, &probe);
                }
                Err(RulesError::Invalid { line, .. }) => proptest::prop_assert!(line >= 1, "{}", text),
                Err(e) => proptest::prop_assert!(e.to_string().starts_with("r.yaml: "), "{}", e),
            }
        }
    }
}

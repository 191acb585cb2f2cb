//! Removes secrets (keys, tokens, passwords, connection-string credentials, private keys) from
//! anything the daemon records. Patterns are matched here, where they are compiled once, rather
//! than in the hook process, whose start-up must stay cheap. Pure; no I/O.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// What a secret is replaced with.
pub const MASK: &str = "[REDACTED]";

/// A name that says its value is secret: `GITHUB_TOKEN`, `db.password`, `client-secret`...
const SECRET_NAME: &str = r"[A-Za-z0-9_.\-]*(?:api[_\-]?key|apikey|secret|token|pass(?:w(?:or)?d|phrase)?|pwd|auth[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?|session[_\-]?key)";

struct Rule {
    pattern: Regex,
    /// Replacement; `$name` groups keep the non-secret part (a key's name, a URL's scheme).
    replacement: &'static str,
    /// A value that only refers to the environment (`process.env.API_KEY`, `$DB_PASSWORD`) is
    /// kept: it names where the secret is, not the secret (and a lesson may be about that very
    /// reference: "never read process.env outside src/config.ts").
    keeps_references: bool,
}

/// Whether a secret-named key's whole unquoted value only refers to the environment, or is a
/// call that fetches it by a constant's name (`Variable.get(HUBSPOT_TOKEN_VAR)`): code, not a
/// secret (a call given anything else may carry one: `x.concat(hunter2)`).
fn env_reference(value: &str) -> bool {
    static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^(?:process\.env(?:\.[A-Za-z_][A-Za-z0-9_]*!?|\[)?|import\.meta\.env\.[A-Za-z_][A-Za-z0-9_]*|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|(?:std::)?env::var(?:_os)?\(|os\.environ(?:\.get\(|\[)?|os\.getenv\(|System\.getenv\(|ENV(?:\.fetch\(|\[)|Deno\.env\.get\(|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\((?:[A-Z][A-Z0-9_]*)?\))$",
        )
        .expect("reference pattern compiles")
    });
    REFERENCE.is_match(value)
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let rule = |pattern: &str, replacement: &'static str| Rule {
        pattern: Regex::new(pattern).expect("redaction pattern compiles"),
        replacement,
        keeps_references: false,
    };
    vec![
        // PEM and PGP private key blocks, whole (a block cut short runs to the end).
        rule(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)", MASK),
        // Password= / Pwd= inside ADO/ODBC style connection strings.
        // A quoted value is left to the quoted-value rule below, which takes it whole.
        Rule { keeps_references: true, ..rule(r#"(?i)(?P<k>\b(?:password|pwd)\s*=\s*)[^;'"\s][^;'"\s]*"#, "${k}[REDACTED]") },
        // Well-known token shapes.
        // An AWS key id and the secret written beside it ("AKIA... / wJalr...", "AKIA...:9f8K..."):
        // both go, the secret being 40 characters of base64.
        // (Its id may be masked already, by a name before it that says it is secret.)
        rule(r"(?:\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\[REDACTED\])(?:\s*[:/,;|]\s*|\s+)[A-Za-z0-9/+]{40}(?P<t>[^A-Za-z0-9/+=]|$)", "[REDACTED]${t}"),
        rule(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", MASK),
        rule(r"\bgh[pousr]_[A-Za-z0-9]{20,}\b", MASK),
        rule(r"\bgithub_pat_[A-Za-z0-9_]{20,}\b", MASK),
        rule(r"\bglpat-[A-Za-z0-9_\-]{20,}\b", MASK),
        rule(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b", MASK),
        rule(r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}\b", MASK),
        rule(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}\b", MASK),
        rule(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_\-]+", MASK),
        rule(r"https://discord(?:app)?\.com/api/webhooks/[A-Za-z0-9/_\-]+", MASK),
        rule(r"\bAIza[0-9A-Za-z_\-]{35}\b", MASK),
        rule(r"\bnpm_[A-Za-z0-9]{36}\b", MASK),
        rule(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\b", MASK),
        // Authorization headers.
        rule(r"(?i)(?P<k>\b(?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=\-]{12,}", "${k}[REDACTED]"),
        // NAME="quoted value" where the name says it is secret: the whole quoted value goes.
        // A quote cut off (by the hook's truncation) runs to the end of the line.
        rule(&format!(r#"(?im)(?P<k>\b{SECRET_NAME}["']?\s*[:=]\s*)(?:"[^"\n]*(?:"|$)|'[^'\n]*(?:'|$))"#), "${k}[REDACTED]"),
        // NAME=value / "name": "value" where the name says it is secret.
        Rule { keeps_references: true, ..rule(&format!(r#"(?i)(?P<k>\b{SECRET_NAME}["']?\s*[:=]\s*["']?)[^\s"',;&|\[][^\s"',;&|]*"#), "${k}[REDACTED]") },
        // --password value / --password='several words' style flags.
        rule(
            r#"(?im)(?P<k>(?:^|\s)--?(?:password|passwd|pass|token|secret|api-key|apikey|access-key|secret-key|auth-token)(?:\s+|=))(?:"[^"\n]*(?:"|$)|'[^'\n]*(?:'|$)|[^\s"']+)"#,
            "${k}[REDACTED]",
        ),
        // mysql -pSECRET (attached), and registry logins: docker/podman/helm login -p SECRET.
        rule(r#"(?i)(?P<k>\b(?:mysql|mariadb|mysqldump|mysqladmin)\b[^\n|;&]*?\s-p)[^\s"']+"#, "${k}[REDACTED]"),
        rule(r#"(?i)(?P<k>\b(?:docker|podman|helm|nerdctl|buildah)\b[^\n|;&]*?\blogin\b[^\n|;&]*?\s-p\s+)(?:"[^"\n]*"|'[^'\n]*'|[^\s"']+)"#, "${k}[REDACTED]"),
        // curl -u user:password / --user user:password.
        rule(r#"(?P<k>(?:^|\s)(?:-u|--user)(?:\s+|=)["']?[^:\s"']+:)[^\s"']+"#, "${k}[REDACTED]"),
        // Cookies: curl -b/--cookie 'name=value', and Cookie: / Set-Cookie: headers (to the end
        // of the header).
        rule(r#"(?i)(?P<k>\bcurl\b[^\n|;&]*?\s(?:-b|--cookie)(?:\s+|=))(?:"[^"\n]*(?:"|$)|'[^'\n]*(?:'|$)|[^\s"']+)"#, "${k}[REDACTED]"),
        rule(r#"(?i)(?P<k>\b(?:set-)?cookie\s*:\s*)[^\n"'\\]+"#, "${k}[REDACTED]"),
        // A secret-named setting given its value as the next word by a config or secrets tool:
        // `aws configure set aws_secret_access_key V`, `git config user.password V`,
        // `npm config set //registry/:_authToken V`, `doppler secrets set API_KEY V`.
        rule(
            &format!(r#"(?i)(?P<k>\b(?:config(?:ure)?|secrets?|user-secrets)\b[^\n|;&]*?[\s:/]["']?{SECRET_NAME}["']?\s+)(?:"[^"\n]*(?:"|$)|'[^'\n]*(?:'|$)|[^\s"'-][^\s"']*)"#),
            "${k}[REDACTED]",
        ),
    ]
});

/// Object keys whose whole value is a secret, whatever it looks like: the names of
/// [`SECRET_NAME`], and a few that only make sense as keys.
fn is_secret_key(key: &str) -> bool {
    static KEY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(r"(?i)^(?:{SECRET_NAME}|[A-Za-z0-9_.\-]*(?:pw|authorization|cookie|set[_\-]?cookie))$")).expect("secret key pattern compiles")
    });
    KEY.is_match(key)
}

/// A URL's `user:password@`: the password goes, whatever it holds (`/`, `@`, `:`, `?`, `#`
/// included, as people write them unencoded). The credentials end at the last `@` followed by
/// something like a host, so a password `p@ss` goes whole (a URL with an `@` further on, in its
/// query, loses more than its password: the safe side). `host:443/@scope/pkg` has a port, not
/// a password.
fn url_credentials(text: &str) -> std::borrow::Cow<'_, str> {
    static URL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s"'<>`]+"#).expect("url pattern compiles"));
    URL.replace_all(text, |c: &regex::Captures<'_>| {
        let url = &c[0];
        let Some(start) = url.find("://").map(|i| i + 3) else { return url.to_string() };
        let rest = &url[start..];
        let host_like = |at: usize| rest[at + 1..].starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '[');
        let Some(at) = rest.match_indices('@').map(|(i, _)| i).rev().find(|&i| host_like(i)) else { return url.to_string() };
        let Some((user, password)) = rest[..at].split_once(':') else { return url.to_string() };
        // `host:port/...`: a host's name (dotted, or localhost) then up to five digits and a `/`.
        let digits = password.split('/').next().unwrap_or_default();
        let port = password.contains('/') && (1..=5).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && (user.contains('.') || user == "localhost");
        if password.is_empty() || user.contains(['/', '?', '#']) || port {
            return url.to_string();
        }
        format!("{}{user}:{MASK}{}", &url[..start], &rest[at..])
    })
}

/// A secret said in words: "the staging password is Tr0ub4dor77", "api key: AbC9...". The value
/// goes when it looks like one (six characters or more, with a digit, a capital after its first
/// letter, or a sign): "the password is stored in vault" names no secret.
fn said_in_words(text: &str) -> std::borrow::Cow<'_, str> {
    static SAID: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)(?P<k>\b(?:password|passwd|passphrase|pass|pwd|pw|secret|token|auth|api[ _-]?key|access[ _-]?key|private[ _-]?key|credentials?)(?P<sep>\s+(?:is|was)\s+|\s*[=:]\s*|\s+)["'`]?)(?P<v>[^\s"'`,;]+)"#)
            .expect("said-in-words pattern compiles")
    });
    SAID.replace_all(text, |c: &regex::Captures<'_>| {
        let v = c["v"].trim_end_matches(['.', ')']);
        // After a bare space ("with pass Hq7rTn3wXe5m", "AUTH Xk82mPq0Lz7Yv1Rt") the value must
        // look like a generated one: eight characters or more, letters and digits.
        let bare = c["sep"].trim().is_empty();
        let generated = v.chars().count() >= 8 && v.chars().any(|ch| ch.is_ascii_digit()) && v.chars().any(|ch| ch.is_alphabetic());
        let looks_secret = (!bare || generated)
            && v.chars().count() >= 6
            && (v.chars().any(|ch| ch.is_ascii_digit()) || v.chars().skip(1).any(|ch| ch.is_uppercase()) || v.chars().any(|ch| !ch.is_alphanumeric() && !matches!(ch, '-' | '_' | '.')))
            && v != MASK
            && !env_reference(v)
            && !env_reference(&c["v"]);
        if looks_secret { format!("{}{MASK}{}", &c["k"], &c["v"][v.len()..]) } else { c[0].to_string() }
    })
}

/// `text` with every secret replaced by [`MASK`].
pub fn redact_text(text: &str) -> String {
    let mut out = url_credentials(text);
    if let std::borrow::Cow::Owned(said) = said_in_words(&out) {
        out = std::borrow::Cow::Owned(said);
    }
    for rule in RULES.iter() {
        let replaced = if rule.keeps_references {
            rule.pattern.replace_all(&out, |c: &regex::Captures<'_>| {
                let (whole, key) = (&c[0], c.name("k").map_or("", |k| k.as_str()));
                if env_reference(&whole[key.len()..]) { whole.to_string() } else { format!("{key}{MASK}") }
            })
        } else {
            rule.pattern.replace_all(&out, rule.replacement)
        };
        if let std::borrow::Cow::Owned(replaced) = replaced {
            out = std::borrow::Cow::Owned(replaced);
        }
    }
    out.into_owned()
}

/// Redacts every string in a JSON value, and the whole value under a secret-named key.
pub fn redact_value(value: &mut Value) {
    match value {
        Value::String(s) => {
            let redacted = redact_text(s);
            if redacted != *s {
                *s = redacted;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if is_secret_key(key) && !matches!(v, Value::Null | Value::Bool(_)) && !v.is_object() {
                    *v = Value::String(MASK.to_string());
                } else {
                    redact_value(v);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assert_gone(input: &str, secret: &str) {
        let out = redact_text(input);
        assert!(!out.contains(secret), "{secret:?} survived in {out:?}");
        assert!(out.contains(MASK), "no mask in {out:?}");
    }

    #[test]
    fn env_assignments() {
        assert_gone("export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 && gh pr list", "ghp_abcdefghijklmnopqrstuvwxyz0123456789");
        assert_gone("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls", "wJalrXUtnFEMI");
        assert_gone("DB_PASSWORD='hunter2hunter2' ./run", "hunter2hunter2");
        assert_gone("API_KEY: abc123def456", "abc123def456");
        assert_gone("DB_PASS=xyz12345", "xyz12345");
        assert_gone("aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI");
    }

    #[test]
    fn a_reference_to_the_environment_is_no_secret() {
        for kept in [
            "apiKey: process.env.PAYMENTS_API_KEY!,",
            "const token = process.env.GITHUB_TOKEN",
            "secret: import.meta.env.VITE_SECRET",
            "PGPASSWORD=$DB_PASSWORD psql -h db",
            "API_KEY=${STRIPE_KEY} ./run",
            "let api_key = std::env::var(\"API_KEY\")?;",
            "password = os.environ[\"DB_PASSWORD\"]",
            "token = os.getenv(\"TOKEN\")",
        ] {
            assert_eq!(redact_text(kept), kept, "a reference, kept");
        }
        // A value beside the reference, or anything computed, still goes.
        assert_gone("API_KEY=${STRIPE_KEY:-sk9f8e7d6c5b4a3} ./run", "sk9f8e7d6c5b4a3");
        assert_gone("TOKEN=$(cat ~/.secrets/tok) ./deploy", "cat");
        assert_gone("apiKey: processenvXYZ123secret", "processenvXYZ123secret");
        assert_gone("password: process.env.X.concat(hunter2)", "hunter2");
    }

    #[test]
    fn token_shapes() {
        assert_gone("key AKIAIOSFODNN7EXAMPLE in config", "AKIAIOSFODNN7EXAMPLE");
        // The secret written beside its key id goes with it.
        assert_gone("credentials: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI");
        assert_gone("CI creds AKIAQ3EGRV7XYZ12ABCD:9f8Kq2LmN0pQ+rS/tUvWxYz1A2b3C4d5E6f7G8h9 go into the CI vars", "9f8Kq2LmN0pQ");
        assert_eq!(redact_text("creds AKIAQ3EGRV7XYZ12ABCD:9f8Kq2LmN0pQ+rS/tUvWxYz1A2b3C4d5E6f7G8h9 go"), "creds [REDACTED] go");
        assert_gone("use sk-ant-api03-abcdefghijklmnopqrstuvwx please", "abcdefghijklmnopqrstuvwx");
        assert_gone("slack xoxb-123456789012-abcdefghijkl", "xoxb-123456789012-abcdefghijkl");
        assert_gone(
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "dozjgNryP4J3jVmNHl0w5N",
        );
        assert_gone("curl -H 'Authorization: Bearer abcdef123456abcdef123456' https://x", "abcdef123456abcdef123456");
    }

    #[test]
    fn connection_strings() {
        let out = redact_text("psql postgres://admin:s3cr3tpass@db.internal:5432/app");
        assert!(!out.contains("s3cr3tpass"));
        assert!(out.contains("postgres://admin:[REDACTED]@db.internal"));
        assert_gone("Server=x;Database=y;User Id=z;Password=Pa55word!;", "Pa55word!");
    }

    #[test]
    fn flags_and_private_keys() {
        assert_gone("mysql -u root --password hunter22 db", "hunter22");
        assert_gone("tool --api-key=zzzyyyxxx run", "zzzyyyxxx");
        assert_gone("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA");
    }

    #[test]
    fn shapes_found_in_review() {
        assert_gone("STRIPE_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc");
        assert_gone("mysql -u root -pHunter2secret app", "Hunter2secret");
        assert_gone("docker login -u bob -p s3cretpass registry.example", "s3cretpass");
        assert_gone("curl -u admin:hunter2pass https://api.example/v1", "hunter2pass");
        assert_gone("curl -X POST https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX", "XXXXXXXXXXXXXXXX");
        let out = redact_text(r#"export DB_PASSWORD="correct horse battery" && run"#);
        assert!(!out.contains("horse") && !out.contains("battery"), "{out}");
        let out = redact_text("tool --password='my pass phrase' go");
        assert!(!out.contains("phrase"), "{out}");
        assert_gone(r#"DB_PASSWORD="ab""#, "ab\"");
    }

    /// The gaps a round of attacks found, and their relatives.
    #[test]
    fn gaps_found_by_attack() {
        assert_gone("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0abcdefXYZ\n=Ab12\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF0abcdefXYZ");
        assert_gone("-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0abcdefXYZ cut off", "lQOYBF0abcdefXYZ");
        assert_gone("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjE");
        assert_gone("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0\n-----END ENCRYPTED PRIVATE KEY-----", "MIIFHDBOBgkqhkiG9w0");
        for (url, password) in [
            ("postgres://app:ab/cdSecret@db/x", "ab/cdSecret"),
            ("postgres://app:p@ss123word@db.internal:5432/app", "p@ss123word"),
            ("mongodb+srv://u:pa/ss@w:rd@cluster0.x.mongodb.net/db?retryWrites=true&w=majority", "pa/ss@w:rd"),
            ("redis://:only-a-password@cache:6379/0", "only-a-password"),
            ("https://bob:tok%2Fen@git.example.com/repo.git", "tok%2Fen"),
            ("postgres://app:pa?ss@db/x", "pa?ss"),
            ("redis://:abc#123@cache:6379", "abc#123"),
            ("postgres://app:2024/secret@db/x", "2024/secret"),
            ("amqp://guest:g&u=e@rabbit:5672/", "g&u=e"),
        ] {
            let out = redact_text(&format!("psql '{url}' -c 'select 1'"));
            assert!(!out.contains(password), "{password:?} survived in {out:?}");
            assert!(out.contains(MASK), "{out}");
        }
        assert_eq!(redact_text("postgres://app:p@ss123word@db.internal:5432/app"), "postgres://app:[REDACTED]@db.internal:5432/app");
        assert_gone("aws configure set aws_secret_access_key wJalrXUtnFEMIK7MDENG", "wJalrXUtnFEMIK7MDENG");
        assert_gone("aws configure set aws_session_token FwoGZXIvYXdzEBYaDExample --profile dev", "FwoGZXIvYXdzEBYaDExample");
        assert_gone("aws configure set default.aws_secret_access_key 'wJalrXUtnFEMIK7MDENG'", "wJalrXUtnFEMIK7MDENG");
        assert_gone("git config --global user.password hunter2hunter2", "hunter2hunter2");
        assert_gone("npm config set //registry.example.test/:_authToken npmTokenValue123", "npmTokenValue123");
        assert_gone("doppler secrets set API_KEY keyvalue12345", "keyvalue12345");
        assert_gone("curl -b 'sessionid=38afes7a8; csrftoken=xyz' https://app.example/api", "38afes7a8");
        assert_gone("curl --cookie sessionid=38afes7a8 https://app.example/api", "38afes7a8");
        assert_gone("curl -s -b \"sid=38afes7a8\" https://app.example/api", "38afes7a8");
        assert_gone("curl -H 'Cookie: sessionid=38afes7a8; theme=dark' https://app.example", "38afes7a8");
        assert_gone("Set-Cookie: sid=38afes7a8; HttpOnly", "38afes7a8");
        // Found by the property test: a bare PASSWORD= with a quoted value of several words.
        let out = redact_text(r#"PASSWORD="correct horse battery" ./run"#);
        assert!(!out.contains("horse") && !out.contains("battery"), "{out}");
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for text in [
            "git checkout -b feature/login",
            "git config --global credential.helper store",
            "aws configure list",
            "npm install https://registry.example.test:443/@scope/pkg",
            "ssh://git@github.com:22/org/repo.git",
            "https://example.com/users/@alice/posts",
            "mailto:bob@example.com",
            "cargo test --release",
            "the token parser handles whitespace",
            "git push origin main",
            "Edit src/auth/password_reset.rs to validate input",
            "mkdir -p build/out && docker run -p 8080:80 web",
            "mysql --help",
            "let token = [];",
            "the password is stored in vault, never in the repo",
            "pass the --release flag to cargo",
            "the auth middleware checks OAuth2 scopes",
            "a token bucket of 100 per second",
            "the api key is read from $STRIPE_KEY at start",
            "token = Variable.get(HUBSPOT_TOKEN_VAR)",
        ] {
            assert_eq!(redact_text(text), text);
        }
    }

    #[test]
    fn secrets_said_in_words() {
        for (text, redacted) in [
            ("remember that the staging database password is Tr0ub4dorHorse77", "remember that the staging database password is [REDACTED]"),
            ("the deploy token is hunter2hunter2 for staging", "the deploy token is [REDACTED] for staging"),
            ("API key: AbCdEfGh12.", "API key: [REDACTED]."),
            ("the secret was 'pa$$word!' until monday", "the secret was '[REDACTED]' until monday"),
            ("fyi the admin login for the staging db is admin with pass Hq7rTn3wXe5m", "fyi the admin login for the staging db is admin with pass [REDACTED]"),
            ("from now on use AUTH Xk82mPq0Lz7Yv1Rt when connecting to redis", "from now on use AUTH [REDACTED] when connecting to redis"),
            ("the db pw is S3cretive!", "the db pw is [REDACTED]"),
        ] {
            assert_eq!(redact_text(text), redacted, "{text}");
        }
    }

    #[test]
    fn quotes_cut_short_still_hide_everything() {
        let out = redact_text("export DB_PASSWORD='w1 w2 w3 w4...[900 more bytes cut by cairn]");
        assert!(!out.contains("w2") && !out.contains("w4"), "{out}");
        let out = redact_text("run --password \"a b c\nnext line");
        assert!(!out.contains(" b ") && out.contains("next line"), "{out}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::base::fuzz_cases(512)))]
        /// No secret of a known shape, generated at random and set in a command, survives.
        #[test]
        fn no_generated_secret_of_a_known_shape_survives(
            shape in 0usize..26,
            body in "[A-Za-z0-9]{24,40}",
            tail in "[A-Za-z0-9]{8,16}",
            password in "[A-Za-z0-9][A-Za-z0-9!$%*+~._/@:?#&=-]{7,23}",
            prefix in "(|[A-Z]{1,6}_)",
            word in proptest::sample::select(vec!["PASSWORD", "TOKEN", "SECRET", "API_KEY", "ACCESS_KEY", "PASSPHRASE", "db_pass", "authKey"]),
            before in proptest::sample::select(vec!["", "cd /srv && ", "echo start; ", "FOO=1 "]),
            after in proptest::sample::select(vec!["", " && make deploy", " | tee out.log", "\nnext line"]),
        ) {
            let aws = format!("AKIA{}", body.to_uppercase().chars().take(16).collect::<String>());
            let (text, secret) = match shape {
                0 => (aws.clone(), aws),
                1 => (format!("ghp_{body}"), body.clone()),
                2 => (format!("github_pat_{body}"), body.clone()),
                3 => (format!("glpat-{body}"), body.clone()),
                4 => (format!("xoxb-{body}"), body.clone()),
                5 => (format!("sk-ant-{body}"), body.clone()),
                6 => (format!("sk_live_{body}"), body.clone()),
                7 => (format!("AIza{}", format!("{body}{body}").chars().take(35).collect::<String>()), body.chars().take(20).collect()),
                8 => (format!("npm_{}", format!("{body}{body}").chars().take(36).collect::<String>()), body.chars().take(20).collect()),
                9 => (format!("eyJ{tail}.eyJ{body}.{tail}{tail}"), body.clone()),
                10 => (format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\n{tail}\n-----END RSA PRIVATE KEY-----"), body.clone()),
                11 => (format!("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{body}\n={tail}\n-----END PGP PRIVATE KEY BLOCK-----"), body.clone()),
                12 => (format!("psql postgres://app:{password}@db.internal:5432/x"), password.clone()),
                13 => (format!("export {prefix}{word}={body}"), body.clone()),
                14 => (format!("{prefix}{word}=\"{body} {tail}\" ./run"), tail.clone()),
                15 => (format!("tool --password {body}"), body.clone()),
                16 => (format!("curl -u admin:{body} https://api.example/v1"), body.clone()),
                17 => (format!("mysql -u root -p{body} app"), body.clone()),
                18 => (format!("docker login -u bob -p {body} registry.example"), body.clone()),
                19 => (format!("aws configure set aws_secret_access_key {body}"), body.clone()),
                20 => (format!("curl -b 'sessionid={body}' https://app.example"), body.clone()),
                21 => (format!("curl -H 'Cookie: sid={body}; theme=dark' https://app.example"), body.clone()),
                22 => (format!("curl -H 'Authorization: Bearer {body}' https://x"), body.clone()),
                23 => (format!("Server=x;Database=y;Password={body};"), body.clone()),
                24 => (format!("git config --global user.password {body}"), body.clone()),
                _ => (format!("{{\"{prefix}{word}\": \"{body}\"}}"), body.clone()),
            };
            let out = redact_text(&format!("{before}{text}{after}"));
            proptest::prop_assert!(!out.contains(&secret), "shape {}: {:?} survived in {:?}", shape, secret, out);
        }
    }

    #[test]
    fn secret_keys() {
        for key in ["pass", "db_pass", "DB_PASS", "PGPASS", "pw", "password", "client_secret", "GITHUB_TOKEN", "Authorization", "cookie", "apiKey"] {
            assert!(is_secret_key(key), "{key}");
        }
        for key in ["user", "command", "description", "path", "tokens_used_count_x"] {
            assert!(!is_secret_key(key), "{key}");
        }
    }

    #[test]
    fn json_values_by_key_and_content() {
        let mut v = json!({
            "command": "export OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz",
            "env": {"password": "plain", "user": "bob", "client_secret": 12345, "DB_PASS": "dbp4ss", "PGPASS": "pgp4ss"},
            "auth": {"pw": "pw1234"},
            "list": ["ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
        });
        redact_value(&mut v);
        let s = v.to_string();
        for secret in ["sk-abcdefghijklmnopqrstuvwxyz", "plain", "12345", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "dbp4ss", "pgp4ss", "pw1234"] {
            assert!(!s.contains(secret), "{secret} survived in {s}");
        }
        assert_eq!(v["env"]["user"], "bob");
    }
}

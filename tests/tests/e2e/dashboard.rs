//! The dashboard (`cairn ui`, the `cairn-ui` server) over HTTP and in a real browser: the token
//! on every route, CSRF and origin checks on every write, the figures against a home seeded with
//! a known history (checked against `cairn log` and `status`), the writes' effects, the empty
//! states of a fresh home, reuse and stop; and headless Chromium loading every page with no
//! console error or failed request, saving a screenshot of each under the build folder.

use std::path::{Path, PathBuf};
use std::time::Duration;

use cairn_tests::*;
use serde_json::{json, Value};

/// A running dashboard of a home: its port and token; stopped (killed) when dropped.
struct Ui {
    port: u16,
    token: String,
    pid: u32,
}

impl Drop for Ui {
    fn drop(&mut self) {
        // SAFETY: kill only sends a signal, to the dashboard this test started.
        unsafe { libc::kill(self.pid as i32, libc::SIGKILL) };
    }
}

fn start_ui(home: &Home) -> Ui {
    let url = home.ok(&["ui", "--no-open"]).trim().to_string();
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("not a loopback URL: {url}"));
    let (port, token) = rest.split_once("/?token=").unwrap_or_else(|| panic!("no token in {url}"));
    let state: Value = serde_json::from_str(&std::fs::read_to_string(home.path().join("ui.json")).unwrap()).unwrap();
    Ui { port: port.parse().unwrap(), token: token.to_string(), pid: state["pid"].as_u64().unwrap() as u32 }
}

/// An HTTP client that follows no redirect and treats every status as an answer.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().max_redirects(0).http_status_as_error(false).timeout_global(Some(Duration::from_secs(30))).build().into()
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

fn answer(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Answer {
    let mut r = r.expect("the dashboard answers");
    let headers = r.headers().iter().map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string())).collect();
    Answer { status: r.status().as_u16(), headers, body: r.body_mut().read_to_string().unwrap_or_default() }
}

impl Ui {
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn cookie(&self) -> String {
        format!("cairn_ui_{}={}", self.port, self.token)
    }

    /// A page with the session cookie the sign-in URL leaves.
    fn get(&self, path: &str) -> Answer {
        answer(agent().get(self.url(path)).header("Cookie", self.cookie()).call())
    }

    fn get_bare(&self, path: &str) -> Answer {
        answer(agent().get(self.url(path)).call())
    }

    /// A form POST as the page's own form sends it (cookie, same origin), with `form`.
    fn post(&self, path: &str, form: &[(&str, &str)], origin: Option<&str>) -> Answer {
        let mut req = agent().post(self.url(path)).header("Cookie", self.cookie());
        if let Some(o) = origin {
            req = req.header("Origin", o);
        }
        answer(req.send_form(form.iter().copied()))
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The CSRF token the page's forms carry.
    fn csrf(&self, path: &str) -> String {
        let body = self.get(path).body;
        let at = body.find("name=\"csrf\" value=\"").unwrap_or_else(|| panic!("no CSRF field on {path}")) + 19;
        body[at..at + 64].to_string()
    }
}

/// A card's figure on the overview (`<h2>LABEL</h2><p class="value">FIGURE</p>`).
fn card(html: &str, label: &str) -> String {
    let key = format!("<h2>{label}</h2><p class=\"value\">");
    let at = html.find(&key).unwrap_or_else(|| panic!("no card {label}")) + key.len();
    html[at..].split('<').next().unwrap().to_string()
}

fn bash(session: &str, id: &str, cwd: &Path, command: &str) -> Vec<u8> {
    json!({
        "session_id": session, "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id,
        "tool_input": {"command": command, "description": "run it"}, "tool_response": {"stdout": "", "stderr": "", "interrupted": false}
    })
    .to_string()
    .into_bytes()
}

fn prompt(session: &str, cwd: &Path, text: &str) -> Vec<u8> {
    json!({"session_id": session, "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": text}).to_string().into_bytes()
}

fn ok_in(home: &Home, dir: &Path, args: &[&str]) -> String {
    let out = home.run_in(Some(dir), &[], args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The advice log of every project, as `cairn log --json` gives it.
fn log_entries(home: &Home) -> Vec<Value> {
    let log: Value = serde_json::from_str(&home.ok(&["log", "--json", "--all", "--last", "1000"])).unwrap();
    log["entries"].as_array().cloned().unwrap_or_default()
}

const PNPM: &str = "This repo uses pnpm workspaces: install and add packages with pnpm, never npm, or the lockfile breaks";

/// A home with a known history in project `shop`: a lesson a rule puts forward on `npm install`,
/// said in two sessions (followed in one, ignored in the other), `used` given once, and a
/// captured candidate from a correction.
fn seeded() -> (Home, PathBuf, String) {
    let home = Home::new();
    home.up();
    let project = home.path().join("shop");
    std::fs::create_dir_all(&project).unwrap();
    let project = std::fs::canonicalize(&project).unwrap();
    let lesson = ok_in(&home, &project, &["add", PNPM, "--category", "tooling"]).trim().to_string();
    std::fs::write(home.path().join("config/trigger_rules.yaml"), format!("rules:\n  - name: npm_here\n    pattern: 'npm install'\n    surface: [{lesson}]\n    priority: high\n")).unwrap();
    // The rule file is read live; wait until it speaks.
    assert!(eventually(Duration::from_secs(20), || additional_context(&assert_hook_contract(&home.hook(&bash("s0", "t0", &project, "npm install left-pad")))).contains("pnpm workspaces")));
    // Followed in s1: the next call does it the lesson's way, the user moves on.
    home.hook(&bash("s1", "t1", &project, "npm install left-pad"));
    home.hook(&bash("s1", "t2", &project, "pnpm add --filter web left-pad"));
    home.hook(&prompt("s1", &project, "Thanks. Now run the unit tests"));
    // Ignored in s2.
    home.hook(&bash("s2", "t1", &project, "npm install left-pad"));
    home.hook(&bash("s2", "t2", &project, "npm install left-pad --legacy-peer-deps"));
    ok_in(&home, &project, &["feedback", "used", &lesson, "--session", "s1", "--tool-use-id", "t1"]);
    // A correction after a call: a candidate for review.
    home.hook(&bash("c1", "t1", &project, "yarn add left-pad"));
    home.hook(&prompt("c1", &project, "no, always run the linter with ruff here, not flake8"));
    let settled = eventually(Duration::from_secs(30), || {
        let entries = log_entries(&home);
        let verdicts: Vec<Value> = entries.iter().flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default()).filter(|o| o["settled"] == true).map(|o| o["verdict"].clone()).collect();
        verdicts.contains(&json!("followed")) && verdicts.contains(&json!("ignored"))
    });
    assert!(settled, "the outcomes never settled: {:#?}", log_entries(&home));
    let review: Value = serde_json::from_str(&ok_in(&home, &project, &["review", "--json"])).unwrap();
    assert!(eventually(Duration::from_secs(20), || {
        let r: Value = serde_json::from_str(&ok_in(&home, &project, &["review", "--json"])).unwrap();
        !r["candidates"].as_array().unwrap().is_empty()
    }), "no candidate was captured: {review}");
    // Attribution runs after the answers: wait until the log stops changing.
    let mut last = String::new();
    let stable = eventually(Duration::from_secs(30), || {
        std::thread::sleep(Duration::from_millis(700));
        let now = serde_json::to_string(&log_entries(&home)).unwrap();
        std::mem::replace(&mut last, now) == last
    });
    assert!(stable, "the advice log kept changing");
    (home, project, lesson)
}

/// The screenshots' folder, under the build folder.
fn screenshots(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/dashboard-screenshots").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Loads `paths` of the dashboard in headless Chromium; the script's report.
fn browse(ui: &Ui, out: &Path, paths: &[&str]) -> Value {
    let puppeteer = std::env::var("CAIRN_PUPPETEER").expect("CAIRN_PUPPETEER is not set: run the tests with scripts/test.sh, which fetches puppeteer-core and installs chromium");
    let chromium = std::env::var("CAIRN_CHROMIUM").expect("CAIRN_CHROMIUM is not set: run the tests with scripts/test.sh");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("browser/dashboard.mjs");
    let start = format!("{}/?token={}", ui.origin(), ui.token);
    let mut cmd = std::process::Command::new("node");
    cmd.arg(script).arg(puppeteer).arg(chromium).arg(start).arg(out).args(paths).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let done = wait_output(cmd.spawn().expect("node runs"), Duration::from_secs(180));
    let stdout = String::from_utf8_lossy(&done.stdout);
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap_or_else(|e| panic!("no report ({e}): {stdout}\n{}", String::from_utf8_lossy(&done.stderr)));
    assert!(done.status.success(), "the browser found problems: {report:#}");
    report
}

#[test]
fn every_route_wants_the_token_and_every_write_its_page() {
    let (home, project, lesson) = seeded();
    let ui = start_ui(&home);
    let lesson_path = format!("/lesson/{lesson}");
    let gets = ["/", "/advice", "/lessons", lesson_path.as_str(), "/review", "/learning", "/static/style.css", "/no-such-page"];
    for path in gets {
        for a in [ui.get_bare(path), answer(agent().get(ui.url(&format!("{path}?token=wrong"))).call()), answer(agent().get(ui.url(path)).header("Cookie", format!("cairn_ui_{}=wrong", ui.port)).call())] {
            assert_eq!((a.status, a.body.as_str()), (401, ""), "{path} without the token");
        }
    }
    for path in [format!("{lesson_path}/feedback"), format!("{lesson_path}/mute"), format!("/review/{lesson}")] {
        let a = answer(agent().post(ui.url(&path)).send_form([("csrf", "x")]));
        assert_eq!((a.status, a.body.as_str()), (401, ""), "POST {path} without the token");
    }
    // A page of another site rebound to 127.0.0.1 names its own host: refused, cookie or not.
    let rebound = answer(agent().get(ui.url("/")).header("Host", "rebound.example").header("Cookie", ui.cookie()).call());
    assert_eq!((rebound.status, rebound.body.as_str()), (401, ""));
    // The URL `cairn ui` printed signs in: a cookie named for this port, and the same page
    // without the token in the address bar.
    let signed = answer(agent().get(ui.url(&format!("/advice?token={}&outcome=followed", ui.token))).call());
    assert_eq!((signed.status, signed.header("location")), (303, Some("/advice?outcome=followed")));
    let cookie = signed.header("set-cookie").unwrap();
    assert!(cookie.starts_with(&ui.cookie()) && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(signed.header("content-security-policy").is_some_and(|c| c.contains("default-src 'none'")), "{:?}", signed.headers);
    // The browser `cairn ui` opens signs in with a one-time code left beside the socket.
    let code = "0123456789abcdef0123456789abcdef";
    std::fs::write(home.path().join(format!("ui-signin-{code}")), "").unwrap();
    let a = ui.get_bare(&format!("/signin?code={code}"));
    assert_eq!((a.status, a.header("location")), (303, Some("/")));
    assert!(a.header("set-cookie").unwrap().starts_with(&ui.cookie()));
    assert!(!home.path().join(format!("ui-signin-{code}")).exists(), "a code is good once");
    for bad in [code.to_string(), "../cairn.sock".into(), "ffffffffffffffffffffffffffffffff".into(), String::new()] {
        let a = ui.get_bare(&format!("/signin?code={bad}"));
        assert_eq!((a.status, a.body.as_str(), a.header("set-cookie")), (401, "", None), "{bad}");
    }
    for path in &gets[..7] {
        assert_eq!(ui.get(path).status, 200, "{path}");
    }
    assert_eq!(ui.get("/no-such-page").status, 404);
    assert_eq!(ui.get(&format!("{lesson_path}/mute")).status, 405, "a write is a POST");
    assert_eq!(ui.get("/lesson/no-such-lesson").status, 404);
    assert_eq!(ui.get("/?days=0").status, 400);
    assert_eq!(ui.get("/?days=many").status, 400);
    assert_eq!(ui.get("/advice?outcome=bogus").status, 400);
    assert_eq!(ui.get("/advice?before=not-a-cursor").status, 400);

    // Writes: the form's CSRF token and the page's own origin, or 403 and nothing changes.
    let csrf = ui.csrf(&lesson_path);
    let shown = |home: &Home| -> Value { serde_json::from_str(&home.ok(&["graph", "show", &lesson, "--json"])).unwrap() };
    for (form_csrf, origin) in [("0".repeat(64), Some(ui.origin())), (csrf.clone(), Some("http://evil.example".to_string())), (String::new(), None)] {
        let a = ui.post(&format!("{lesson_path}/mute"), &[("csrf", &form_csrf), ("muted", "1")], origin.as_deref());
        assert_eq!(a.status, 403, "{origin:?}");
    }
    assert_eq!(shown(&home)["muted"], false, "a refused write changed nothing");
    let a = ui.post(&format!("{lesson_path}/mute"), &[("csrf", &csrf), ("muted", "1")], Some(&ui.origin()));
    assert_eq!(a.status, 303, "{}", a.body);
    assert!(a.header("location").unwrap().starts_with(&format!("{lesson_path}?done=muted")), "{:?}", a.headers);
    assert_eq!(shown(&home)["muted"], true);
    assert!(ui.get(&lesson_path).body.contains(">Unmute</button>"));
    ui.post(&format!("{lesson_path}/mute"), &[("csrf", &csrf), ("muted", "0")], Some(&ui.origin()));
    assert_eq!(shown(&home)["muted"], false);
    // Feedback from the page: `not-useful` lowers the node weight; `used` needs its moment.
    let a = ui.post(&format!("{lesson_path}/feedback"), &[("csrf", &csrf), ("verb", "not-useful")], Some(&ui.origin()));
    assert_eq!(a.status, 303, "{}", a.body);
    assert!(shown(&home)["memory"]["node_weight"].as_f64().unwrap() < 1.0);
    let a = ui.post(&format!("{lesson_path}/feedback"), &[("csrf", &csrf), ("verb", "used")], Some(&ui.origin()));
    assert_eq!(a.status, 400, "{}", a.body);
    let a = ui.post(&format!("{lesson_path}/feedback"), &[("csrf", &csrf), ("verb", "loved")], Some(&ui.origin()));
    assert_eq!(a.status, 400);
    let a = ui.post(&format!("{lesson_path}/feedback"), &[("csrf", &csrf), ("verb", "not-relevant"), ("session", "s2"), ("tool_use_id", "t1")], Some(&ui.origin()));
    assert_eq!(a.status, 303, "{}", a.body);
    let page = ui.get(&lesson_path).body;
    assert!(page.contains("not-relevant on ") && page.contains("-[applies]-&#62; "), "the adjustment log shows the write");
    assert!(page.contains("Used</button>") && page.contains("npm install left-pad"), "the moments it was said, with their buttons");

    // Review: the captured candidate, accepted from the page.
    let review = ui.get("/review").body;
    let candidates: Value = serde_json::from_str(&ok_in(&home, &project, &["review", "--json"])).unwrap();
    let id = candidates["candidates"][0]["id"].as_str().unwrap().to_string();
    assert!(review.contains(&id) && review.contains("Shadow: would have spoken"), "{review}");
    let csrf_review = ui.csrf("/review");
    assert_eq!(csrf_review, csrf, "one CSRF token per start");
    let a = ui.post(&format!("/review/{id}"), &[("csrf", &csrf), ("action", "edit"), ("text", "")], Some(&ui.origin()));
    assert_eq!(a.status, 400, "an edit needs its text");
    let a = ui.post(&format!("/review/{id}"), &[("csrf", &csrf), ("action", "accept")], Some(&ui.origin()));
    assert_eq!(a.status, 303, "{}", a.body);
    let after: Value = serde_json::from_str(&ok_in(&home, &project, &["review", "--json"])).unwrap();
    assert!(after["candidates"].as_array().unwrap().is_empty(), "{after}");
    assert!(ui.get("/review").body.contains("No candidates waiting"));
}

#[test]
fn the_figures_are_those_of_the_history() {
    let (home, project, lesson) = seeded();
    let ui = start_ui(&home);
    let entries = log_entries(&home);
    let said: usize = entries.iter().map(|e| e["items"].as_array().map_or(0, Vec::len)).sum();
    let verdicts: Vec<String> = entries.iter().flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default()).map(|o| o["verdict"].as_str().unwrap().to_string()).collect();
    let count = |v: &str| verdicts.iter().filter(|x| *x == v).count();
    assert!(said >= 3 && count("followed") == 1 && count("ignored") >= 1, "the premise: {entries:#?}");
    let pct = |n: usize, d: usize| format!("{:.0}%", n as f64 * 100.0 / d as f64);

    let project_q = format!("/?project={}", serde_json::to_string(&project).unwrap().trim_matches('"').replace('/', "%2F"));
    let html = ui.get(&project_q).body;
    assert_eq!(card(&html, "Lessons said"), said.to_string(), "{html}");
    // Every moment known to need the lesson (followed once, marked used once) had it said.
    assert_eq!(card(&html, "Hit rate"), pct(count("followed") + 1, count("followed") + 1));
    // `used` where the lesson was not said is a miss: the hit rate counts it.
    ok_in(&home, &project, &["feedback", "used", &lesson, "--session", "c1", "--tool-use-id", "t1"]);
    let missed = ui.get(&project_q).body;
    assert_eq!(card(&missed, "Hit rate"), pct(count("followed") + 1, count("followed") + 2), "{missed}");
    let judged = count("followed") + count("ignored") + count("contradicted");
    assert_eq!(card(&html, "Followed rate"), pct(count("followed"), judged));
    assert!(card(&html, "Hook time (median)").starts_with('≤'), "hook requests were timed");
    let all = ui.get("/").body;
    assert_eq!(card(&all, "Memories"), home.status()["memories"].to_string());
    assert!(all.contains("1 candidates waiting"), "the captured candidate");
    // The days in numbers: today's row.
    let today = time::OffsetDateTime::now_utc().date().to_string();
    let row_at = html.find(&format!("<tr><td>{today}</td>")).expect("today's row");
    let cells: Vec<&str> = html[row_at..].split("</tr>").next().unwrap().split("<td>").skip(2).map(|c| c.trim_end_matches("</td>")).collect();
    let events_today = home.status()["session_events"].as_u64().unwrap();
    assert_eq!(cells[0], events_today.to_string(), "every event of the home is in this project today: {cells:?}");
    assert_eq!((cells[1], cells[2], cells[3], cells[6]), (said.to_string().as_str(), "1", count("ignored").to_string().as_str(), "1"), "said, followed, ignored, used: {cells:?}");
    // Another project has no activity, and says so.
    assert!(ui.get("/?project=%2Felsewhere").body.contains("No activity in this range yet"));

    // The advice log: every row of a lesson, the filters, the outcome of each.
    let by_lesson = ui.get(&format!("/advice?lesson={lesson}")).body;
    let events_with_lesson = entries.iter().filter(|e| e["items"].as_array().unwrap().iter().any(|i| i["id"] == lesson)).count();
    assert_eq!(by_lesson.matches("<li class=\"entry\">").count(), events_with_lesson);
    let followed = ui.get("/advice?outcome=followed").body;
    assert_eq!(followed.matches("<li class=\"entry\">").count(), 1, "{followed}");
    assert!(followed.contains("followed</span>") && followed.contains("session <a href=\"/advice?session=s1\">s1</a>"));
    let s2 = ui.get("/advice?session=s2").body;
    assert!(s2.matches("<li class=\"entry\">").count() >= 1 && !s2.contains("session <a href=\"/advice?session=s1\">"));
    assert!(ui.get("/advice?project=%2Felsewhere").body.contains("Nothing said matches these filters"));
    // Why: every signal, under its own name.
    assert!(by_lesson.contains("<td>probability</td>") && by_lesson.contains("<td>relevance</td>"), "signals shown");

    // A lesson's page: its record, its situations and edges, its adjustment log.
    let page = ui.get(&format!("/lesson/{lesson}")).body;
    assert!(page.contains("pnpm workspaces") && page.contains("<dt>Worth</dt>") && page.contains("<dt>Node weight</dt>"));
    assert!(page.contains("<svg class=\"graph\"") && page.contains("used on "), "the situation `used` made, drawn, and its log line");
    assert!(page.contains("<svg class=\"chart\""), "worth over time, from the outcomes and feedback");
    // Lessons, listed and searched.
    assert!(ui.get("/lessons").body.contains(&format!("/lesson/{lesson}")));
    let project_arg = serde_json::to_string(&project).unwrap().trim_matches('"').replace('/', "%2F");
    assert!(ui.get(&format!("/lessons?q=pnpm&project={project_arg}")).body.contains(&format!("/lesson/{lesson}")));
    // Learning: both mixes against their defaults.
    let learning = ui.get(&format!("/learning?project={project_arg}")).body;
    assert!(learning.contains("Fusion weights") && learning.contains("Prediction weights") && learning.contains("<th scope=\"col\">Default</th>"));

    // Every page in a real browser: no console error, no failed request; a screenshot of each.
    let out = screenshots("seeded");
    let pages = ["/", &project_q, "/advice", &format!("/advice?lesson={lesson}"), &format!("/lesson/{lesson}"), "/lessons", "/review", &format!("/learning?project={project_arg}")];
    let report = browse(&ui, &out, &pages);
    assert_eq!(report["pages"].as_array().unwrap().len(), pages.len());
    for p in report["pages"].as_array().unwrap() {
        for shot in p["screenshots"].as_array().unwrap() {
            assert!(std::fs::metadata(shot.as_str().unwrap()).unwrap().len() > 1000, "{shot}");
        }
    }
}

#[test]
fn a_fresh_home_shows_empty_states_and_the_server_is_reused_and_stopped() {
    let home = Home::new();
    // `cairn ui` starts the daemon when none runs, as the hook does.
    let ui = start_ui(&home);
    assert!(home.status()["pid"].as_u64().is_some());
    for (path, empty) in [
        ("/", "No activity in this range yet"),
        ("/advice", "Nothing said yet"),
        ("/lessons", "No lessons here yet"),
        ("/review", "No candidates waiting"),
        ("/learning", "No run has learned a mix here yet"),
    ] {
        let a = ui.get(path);
        assert_eq!(a.status, 200, "{path}");
        assert!(a.body.contains(empty), "{path}: {}", a.body);
    }
    let report = browse(&ui, &screenshots("fresh"), &["/", "/advice", "/lessons", "/review", "/learning"]);
    // A hook that gave up at its deadline shows on its day, from the hook-miss log.
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    std::fs::write(home.path().join("logs/hook-misses.log"), format!("{now} event=PostToolUse stage=connect deadline_ms=200\n{} event=PostToolUse stage=answer deadline_ms=200\n", now - 3 * 86_400)).unwrap();
    let html = ui.get("/?days=7").body;
    assert_eq!(card(&html, "Hook misses"), "2", "{html}");
    let today = time::OffsetDateTime::now_utc().date().to_string();
    let row = html.split(&format!("<tr><td>{today}</td>")).nth(1).expect("today's row").split("</tr>").next().unwrap();
    assert!(row.ends_with("<td>1</td>"), "one miss today: {row}");
    assert_eq!(card(&ui.get("/?days=1").body, "Hook misses"), "1", "the range counts only its own days");
    assert_eq!(report["pages"].as_array().unwrap().len(), 5);

    // Opening the browser: the opener gets a one-time sign-in URL, never the token.
    let bin = home.path().join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let opened = home.path().join("opened.txt");
    std::fs::write(bin.join("xdg-open"), format!("#!/bin/sh\nprintf '%s' \"$1\" > '{}'\n", opened.display())).unwrap();
    std::fs::set_permissions(bin.join("xdg-open"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let out = home.run_in(None, &[("PATH", std::ffi::OsStr::new(&path))], &["ui"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The shell makes the file before `printf` writes into it: wait for what it wrote.
    assert!(eventually(Duration::from_secs(10), || std::fs::read_to_string(&opened).is_ok_and(|s| !s.is_empty())), "the opener ran");
    let url = std::fs::read_to_string(&opened).unwrap();
    assert!(url.starts_with(&format!("{}/signin?code=", ui.origin())) && !url.contains(&ui.token), "{url}");
    let a = answer(agent().get(&url).call());
    assert_eq!((a.status, a.header("location")), (303, Some("/")));
    assert_eq!(answer(agent().get(&url).call()).status, 401, "used once");
    // Reused while it runs; another port is refused; stopped, its state file and port are gone.
    let again = home.ok(&["ui", "--no-open"]);
    assert_eq!(again.trim(), format!("{}/?token={}", ui.origin(), ui.token));
    let other = home.run(&["ui", "--no-open", "--port", &(ui.port.wrapping_add(1)).to_string()]);
    assert_eq!(other.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&other.stderr).contains("cairn ui --stop"), "{}", String::from_utf8_lossy(&other.stderr));
    home.ok(&["ui", "--stop"]);
    assert!(!home.path().join("ui.json").exists());
    assert!(std::net::TcpStream::connect(("127.0.0.1", ui.port)).is_err(), "the port is closed");
    // The daemon going away is a clear page, not a hang or a crash.
    let ui = start_ui(&home);
    home.down();
    let a = ui.get("/");
    assert_eq!(a.status, 503);
    assert!(a.body.contains("cairnd is not running"), "{}", a.body);
    home.up();
    assert_eq!(ui.get("/").status, 200, "it reconnects to a daemon started again");
}

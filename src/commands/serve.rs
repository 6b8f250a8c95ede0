//! `dtb serve`: a local tablebase explorer in the browser and its HTTP API.
//!
//! `GET /` is the page (HTML, CSS and JavaScript embedded in the binary,
//! nothing fetched from elsewhere); `GET /api/probe?fen=...&plies_left=...&kings_only_plies=...`
//! answers with the JSON object of `dtb probe --json`. Bad input is a 400,
//! a missing table a 404, a corrupted one a 500, each with `{"error": ...}`.
//! Nothing the client sends reaches the file system: the only input is a
//! position and two numbers. Nothing about the file system reaches the client
//! either: error messages name tables, never paths (the server's own log
//! on stderr has the details).
//!
//! Connections are capped and timed out (see [`listen`]), so slow clients
//! cannot hold the server.

mod listen;

use std::path::Path;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use format::FormatError;
use probe::{answer, principal_line, DrawCounts, ProbeError, RuleSet, Tablebase};
use serde::Deserialize;
use serde_json::json;

use crate::commands::common::{parse_position, TableArgs};
use crate::exit::{
    probe_code, CliError, CliResult, BAD_INPUT, CORRUPTED_TABLE, FAILURE, MISSING_TABLE,
};
use crate::report::{to_json, with_line};

/// The longest query string accepted.
const MAX_QUERY: usize = 512;

/// Flags of `dtb serve`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    tables: TableArgs,
    /// Address to listen on: IP:PORT or HOST:PORT (a host name such as
    /// localhost is resolved).
    #[arg(long, default_value = "127.0.0.1:8080", value_parser = listen::parse_addr)]
    addr: listen::ListenAddr,
    /// Allow an address other than loopback (the explorer then answers
    /// anyone who can reach this machine).
    #[arg(long)]
    public: bool,
    #[command(flatten, next_help_heading = crate::commands::common::EXPERT)]
    limits: listen::Limits,
}

#[derive(Deserialize)]
struct ProbeQuery {
    fen: Option<String>,
    plies_left: Option<String>,
    kings_only_plies: Option<String>,
}

const INDEX_HTML: &str = include_str!("../web/index.html");
const APP_JS: &str = include_str!("../web/app.js");
const STYLE_CSS: &str = include_str!("../web/style.css");

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({"error": message.into()}))).into_response()
}

fn status_of(code: i32) -> StatusCode {
    match code {
        BAD_INPUT => StatusCode::BAD_REQUEST,
        MISSING_TABLE => StatusCode::NOT_FOUND,
        CORRUPTED_TABLE | FAILURE => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The name of a table file (its material), without the directory.
fn table_name(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "?".into(), |s| s.to_string_lossy().into_owned())
}

/// What is wrong with a damaged table, without the path an I/O error
/// carries.
fn format_problem(e: &FormatError) -> String {
    match e {
        FormatError::Io { source, .. } => format!("read error ({})", source.kind()),
        FormatError::NotRegularFile(_) => "not a regular file".into(),
        FormatError::BadMagic
        | FormatError::UnsupportedVersion(_)
        | FormatError::Truncated(_)
        | FormatError::Checksum(_)
        | FormatError::Corrupt(_)
        | FormatError::UnknownRuleSet(_)
        | FormatError::Writer(_) => e.to_string(),
        // A kind added later may carry a path: not shown.
        _ => "unreadable (the server's log has the details)".into(),
    }
}

/// A probe error as the HTTP client sees it: the table by name and how to
/// fix it, never a path on this machine.
fn public_message(e: &ProbeError, rule_set: RuleSet) -> String {
    match e {
        ProbeError::MissingTable { material, .. } => format!(
            "missing table {material} (build it with {})",
            crate::costs::gen_command(material.pieces(), rule_set, None)
        ),
        ProbeError::Corrupted { path, source } => format!(
            "corrupted table {}: {} (dtb verify checks the tables)",
            table_name(path),
            format_problem(source)
        ),
        ProbeError::RuleSetMismatch {
            path,
            expected,
            found,
        } => format!(
            "table {} was built for rule set {found}, not {expected}",
            table_name(path)
        ),
        ProbeError::WrongMaterial {
            path,
            expected,
            found,
        } => format!(
            "table file {} holds material {found}, not {expected}",
            table_name(path)
        ),
        ProbeError::Io { source, .. } => {
            format!("cannot read the tables ({})", source.kind())
        }
        ProbeError::MissingDirectory { rule_set, .. } => {
            format!("no {rule_set} tables on this server (build them with dtb gen)")
        }
        ProbeError::TooManyPieces { .. }
        | ProbeError::InvalidPosition(_)
        | ProbeError::BadPliesLeft { .. }
        | ProbeError::BadKingsOnlyPlies { .. } => e.to_string(),
        // A kind added later may carry a path: not shown.
        _ => "the tables cannot answer (the server's log has the details)".into(),
    }
}

/// Status and message for a failed probe; the full error (with paths) goes
/// to the server's stderr when it is the server's problem.
fn probe_failure(e: &ProbeError, rule_set: RuleSet) -> (StatusCode, String) {
    let code = probe_code(e);
    if code != BAD_INPUT {
        eprintln!("dtb: {e}");
    }
    (status_of(code), public_message(e, rule_set))
}

/// The answer for `fen` as JSON, or the status and message of the error.
fn probe_json(
    tb: &Tablebase,
    fen: &str,
    counts: DrawCounts,
) -> Result<serde_json::Value, (StatusCode, String)> {
    let pos = parse_position(fen).map_err(|e| (status_of(e.code), e.message))?;
    let answer = answer(tb, &pos, counts).map_err(|e| probe_failure(&e, tb.rule_set()))?;
    // The principal line, where the DTC files make it go somewhere.
    if !answer.dtc_available {
        return Ok(to_json(&answer));
    }
    let line = principal_line(tb, &pos, counts).map_err(|e| probe_failure(&e, tb.rule_set()))?;
    Ok(with_line(to_json(&answer), line.as_ref()))
}

/// What the handlers share: the tables, and permits for the probes run on
/// blocking threads. A probe that outlives its request's timeout keeps its
/// permit until it ends, so slow probes cannot pile up past the cap.
#[derive(Clone)]
pub struct AppState {
    tb: Arc<Tablebase>,
    probes: Arc<tokio::sync::Semaphore>,
}

/// Probes running at once (on blocking threads), whatever the number of
/// connections.
const MAX_PROBES: usize = 16;

/// A draw count from the query: `None` when absent or empty, else a
/// number (the prober checks its range), or the response refusing it.
#[allow(clippy::result_large_err)]
fn count_parameter(name: &str, text: Option<&str>, max: u8) -> Result<Option<u8>, Response> {
    match text.map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) => t.parse::<u8>().map(Some).map_err(|_| {
            error(
                StatusCode::BAD_REQUEST,
                format!("{name} {t:?} is not a number 0-{max}"),
            )
        }),
    }
}

async fn api_probe(
    State(app): State<AppState>,
    uri: Uri,
    query: Result<Query<ProbeQuery>, QueryRejection>,
) -> Response {
    if uri.query().map_or(0, str::len) > MAX_QUERY {
        return error(
            StatusCode::BAD_REQUEST,
            format!("query longer than {MAX_QUERY} bytes"),
        );
    }
    let Ok(Query(q)) = query else {
        return error(StatusCode::BAD_REQUEST, "bad query string");
    };
    let Some(fen) = q.fen else {
        return error(StatusCode::BAD_REQUEST, "missing fen parameter");
    };
    let plies_left = match count_parameter("plies_left", q.plies_left.as_deref(), 32) {
        Ok(n) => n,
        Err(response) => return response,
    };
    let kings_only_plies =
        match count_parameter("kings_only_plies", q.kings_only_plies.as_deref(), 49) {
            Ok(n) => n.unwrap_or(0),
            Err(response) => return response,
        };
    let counts = DrawCounts::new(plies_left, kings_only_plies);
    let Ok(permit) = Arc::clone(&app.probes).acquire_owned().await else {
        return error(StatusCode::SERVICE_UNAVAILABLE, "shutting down");
    };
    // Probing reads memory-mapped files: keep it off the async workers.
    let tb = app.tb;
    let result = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        probe_json(&tb, &fen, counts)
    })
    .await;
    match result {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err((status, message))) => error(status, message),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal error"),
    }
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// The router: page, assets and API over one tablebase.
pub fn router(tb: Arc<Tablebase>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route("/api/probe", get(api_probe))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such page") })
        .with_state(AppState {
            tb,
            probes: Arc::new(tokio::sync::Semaphore::new(MAX_PROBES)),
        })
}

/// `dtb serve`: serves the explorer until Ctrl-C.
pub fn run(args: Args) -> CliResult {
    if !args.addr.is_loopback() && !args.public {
        return Err(CliError::bad_input(format!(
            "{} is not a loopback address; pass --public to serve other machines",
            args.addr
        )));
    }
    let tb = Arc::new(Tablebase::open(&args.tables.dir, args.tables.rule_set)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(FAILURE, format!("cannot start the server: {e}")))?;
    runtime.block_on(async move {
        let listener =
            args.addr.bind().await.map_err(|e| {
                CliError::new(FAILURE, format!("cannot listen on {}: {e}", args.addr))
            })?;
        let local = listener
            .local_addr()
            .map_err(|e| CliError::new(FAILURE, e))?;
        eprintln!(
            "dtb: serving {} tables from {} on http://{local}/ (Ctrl-C stops)",
            args.tables.rule_set,
            args.tables.dir.display()
        );
        tokio::select! {
            () = listen::serve(listener, router(tb), args.limits) => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok(())
    })
}

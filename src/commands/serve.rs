//! `dtb serve`: a local tablebase explorer in the browser and its HTTP API.
//!
//! `GET /` is the page (HTML, CSS and JavaScript embedded in the binary,
//! nothing fetched from elsewhere); `GET /api/probe?fen=...&plies_left=...`
//! answers with the JSON object of `dtb probe --json`. Bad input is a 400,
//! a missing table a 404, a corrupted one a 500, each with `{"error": ...}`.
//! Nothing the client sends reaches the file system: the only input is a
//! position and a number.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use probe::Tablebase;
use serde::Deserialize;
use serde_json::json;

use crate::commands::common::{parse_position, TableArgs};
use crate::exit::{CliError, CliResult, BAD_INPUT, CORRUPTED_TABLE, FAILURE, MISSING_TABLE};
use crate::report::{answer, to_json};

/// The longest query string accepted.
const MAX_QUERY: usize = 512;

/// Flags of `dtb serve`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    tables: TableArgs,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Allow an address other than loopback (the explorer then answers
    /// anyone who can reach this machine).
    #[arg(long)]
    public: bool,
}

#[derive(Deserialize)]
struct ProbeQuery {
    fen: Option<String>,
    plies_left: Option<String>,
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

async fn api_probe(
    State(tb): State<Arc<Tablebase>>,
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
    let plies_left = match q.plies_left.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(t) => match t.parse::<u8>() {
            Ok(n) => Some(n),
            Err(_) => {
                return error(
                    StatusCode::BAD_REQUEST,
                    format!("plies_left {t:?} is not a number 0-32"),
                )
            }
        },
    };
    // Probing reads memory-mapped files: keep it off the async workers.
    let result = tokio::task::spawn_blocking(move || -> Result<serde_json::Value, CliError> {
        let pos = parse_position(&fen)?;
        Ok(to_json(&answer(&tb, &pos, plies_left)?))
    })
    .await;
    match result {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) => error(status_of(e.code), e.message),
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
        .with_state(tb)
}

pub fn run(args: Args) -> CliResult {
    if !args.addr.ip().is_loopback() && !args.public {
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
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .map_err(|e| CliError::new(FAILURE, format!("cannot listen on {}: {e}", args.addr)))?;
        let local = listener
            .local_addr()
            .map_err(|e| CliError::new(FAILURE, e))?;
        eprintln!(
            "dtb: serving {} tables from {} on http://{local}/ (Ctrl-C stops)",
            args.tables.rule_set,
            args.tables.dir.display()
        );
        axum::serve(listener, router(tb))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| CliError::new(FAILURE, format!("server: {e}")))
    })
}

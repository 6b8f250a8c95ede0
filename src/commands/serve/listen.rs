//! Where `dtb serve` listens and how it holds connections: host names
//! resolved, a cap on connections served at once, and timeouts so that
//! slow or stalled clients cannot keep the server busy.
//!
//! HTTP/1 is spoken by hyper; each accepted connection takes one of
//! `--max-connections` slots (further clients wait in the listen queue),
//! hyper closes a connection whose request headers do not arrive within
//! `--header-timeout` (counted from when it opens or from the end of the
//! previous response, so this is also the keep-alive idle limit), a
//! request not answered within `--request-timeout` gets a 503, and a
//! connection is closed after `--connection-timeout` whatever it does.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower_http::timeout::TimeoutLayer;

/// The `--addr` value: what was written and the addresses it resolves to.
#[derive(Clone, Debug)]
pub struct ListenAddr {
    text: String,
    addrs: Vec<SocketAddr>,
}

impl ListenAddr {
    /// Whether every address it resolves to is a loopback one (so only
    /// this machine can connect).
    pub fn is_loopback(&self) -> bool {
        self.addrs.iter().all(|a| a.ip().is_loopback())
    }

    /// Binds the first of its addresses that can be bound.
    pub async fn bind(&self) -> io::Result<TcpListener> {
        TcpListener::bind(&self.addrs[..]).await
    }
}

impl std::fmt::Display for ListenAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Parses `IP:PORT` or `HOST:PORT` (`localhost:8080`, `[::1]:8080`),
/// resolving a host name.
pub fn parse_addr(text: &str) -> Result<ListenAddr, String> {
    let addrs: Vec<SocketAddr> = text
        .to_socket_addrs()
        .map_err(|e| {
            format!("cannot use address {text:?} ({e}): write HOST:PORT, e.g. localhost:8080")
        })?
        .collect();
    if addrs.is_empty() {
        return Err(format!("{text:?} resolves to no address"));
    }
    Ok(ListenAddr {
        text: text.to_string(),
        addrs,
    })
}

/// A positive number of seconds (fractions allowed).
/// The longest timeout accepted (a day): deadlines far beyond it would
/// overflow the clock's arithmetic.
const MAX_SECONDS: f64 = 86_400.0;

fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0 && *s <= MAX_SECONDS)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| {
            format!("{text:?} is not a number of seconds above 0 and at most {MAX_SECONDS}")
        })
}

fn parse_connections(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=Semaphore::MAX_PERMITS).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is not a number of connections of at least 1"
        )),
    }
}

/// How long and how many connections are held (flags of `dtb serve`).
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Limits {
    /// Seconds a connection has to send a request's headers, counted from
    /// when it opens or from the end of its previous response (so also the
    /// keep-alive idle time); then it is closed.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = parse_seconds)]
    pub header_timeout: Duration,
    /// Seconds to answer one request; a slower answer is replaced by a 503.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_seconds)]
    pub request_timeout: Duration,
    /// Seconds a connection may stay open in all; then it is closed once
    /// its current request is answered.
    #[arg(long, value_name = "SECS", default_value = "300", value_parser = parse_seconds)]
    pub connection_timeout: Duration,
    /// Connections served at once; further clients wait until one closes.
    #[arg(long, value_name = "N", default_value = "64", value_parser = parse_connections)]
    pub max_connections: usize,
}

/// Serves `app` on `listener` within `limits`, until the future is dropped.
pub async fn serve(listener: TcpListener, app: Router, limits: Limits) {
    let app = app.layer(TimeoutLayer::with_status_code(
        StatusCode::SERVICE_UNAVAILABLE,
        limits.request_timeout,
    ));
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        // A free slot first: while all are taken, new clients wait in the
        // listen queue instead of being accepted and starved.
        let slot = Arc::clone(&slots)
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let stream = accept(&listener).await;
        tokio::spawn(connection(stream, app.clone(), limits, slot));
    }
}

/// The next connection; failed accepts are retried (after a pause when
/// the process is out of file descriptors or memory).
async fn accept(listener: &TcpListener) -> TcpStream {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => return stream,
            Err(e) if is_connection_error(&e) => {}
            Err(e) => {
                eprintln!("dtb: accepting a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Errors of one client's connection, not of the listener.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Serves one connection, holding its slot until it is closed.
async fn connection(stream: TcpStream, app: Router, limits: Limits, _slot: OwnedSemaphorePermit) {
    let _ = stream.set_nodelay(true);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let mut conn =
        pin!(builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app)));
    tokio::select! {
        _ = conn.as_mut() => return,
        () = tokio::time::sleep(limits.connection_timeout) => conn.as_mut().graceful_shutdown(),
    }
    // Let the request in progress finish (it has its own timeout, but its
    // client may not read the answer), then drop the connection.
    let _ = tokio::time::timeout(limits.request_timeout, conn).await;
}

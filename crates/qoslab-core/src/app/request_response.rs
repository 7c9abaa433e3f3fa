//! Request-response users over TCP — HTTP/1.0 browsing and RPC-style requests.
//!
//! Each of `users` users repeats: open a connection, send a request, receive the response,
//! and wait a think time. The server answers once the whole request has arrived and closes
//! the connection after the response, as an HTTP/1.0 server does; the client closes its side
//! when the server's FIN arrives. One connection carries one request (HTTP/1.0 without
//! keep-alive, and the ad-hoc report's RPC application). The response time runs from the
//! connection's first SYN to the response's last byte at the client, so it includes the
//! handshake. The think time starts when the connection has closed. Each user first waits
//! a uniformly random part of a think time, so users do not begin in lockstep — not even
//! with a constant think time.
//!
//! Study parameters: the DiffServ measurements' HTTP users think 12 s between objects of
//! geometric size with mean 10 kB; the ad-hoc report's RPC sends requests of at most 500 B
//! about every 10 s, answered by responses of exponential size with mean 10 kB.

use super::app_stats::AppStats;
use super::pair_of;
use crate::engine::Rng;
use crate::ids::EndpointId;
use crate::tcp::TcpStack;
use crate::time::SimTime;
use crate::traffic::distribution::DurationDist;
use crate::traffic::size_dist::SizeDist;
use schemars::JsonSchema;
use serde::Deserialize;

/// Parameters of a request-response application (`kind: http` or `kind: rpc`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestResponseParams {
    /// Number of users (default 1), each with its own connections.
    pub users: Option<u32>,
    /// Request size (default: 300 B for `http`, a typical HTTP/1.0 GET; 500 B for `rpc`).
    pub request_size: Option<SizeDist>,
    /// Response size: `"10kB"`, `{exponential: 10kB}` or `{geometric: 10kB}`.
    pub response_size: SizeDist,
    /// Pause between a connection's close and the user's next request.
    pub think_time: DurationDist,
    /// Requests per user (default 0: as many as the run allows).
    pub requests: Option<u64>,
}

/// Where one user is.
#[derive(Clone, Debug)]
struct Exchange {
    start: SimTime,
    request_bytes: u64,
    response_bytes: u64,
    answered: bool,
    done: bool,
    closed: bool,
}

/// One user.
#[derive(Clone, Debug)]
struct User {
    exchange: Option<Exchange>,
    requests_left: Option<u64>,
    delivered_seen: u64,
}

/// A running request-response application.
#[derive(Clone, Debug)]
pub struct RequestResponseApp {
    /// The first user's client endpoint; user u has endpoints first + 2u (client) and
    /// first + 2u + 1 (server).
    first: EndpointId,
    request_size: SizeDist,
    response_size: SizeDist,
    think_time: DurationDist,
    users: Vec<User>,
    pub(super) rng: Rng,
    /// What the application achieved.
    pub stats: AppStats,
}

impl RequestResponseApp {
    /// An application whose users' endpoint pairs start at `first`; `default_request`
    /// is the request size when the scenario gives none.
    pub fn new(
        params: &RequestResponseParams,
        default_request: SizeDist,
        first: EndpointId,
        rng: Rng,
    ) -> Self {
        let requests_left = params.requests.filter(|&n| n > 0);
        let users = params.users.unwrap_or(1);
        RequestResponseApp {
            first,
            request_size: params.request_size.unwrap_or(default_request),
            response_size: params.response_size,
            think_time: params.think_time,
            users: vec![User { exchange: None, requests_left, delivered_seen: 0 }; users as usize],
            rng,
            stats: AppStats::new(users),
        }
    }

    /// When each user sends its first request, given the application's start time: after
    /// a uniformly random part of a think time, so users with a constant think time do not
    /// all request at once.
    pub fn first_starts(&mut self, start: SimTime) -> Vec<SimTime> {
        (0..self.users.len())
            .map(|_| {
                let think_ns = self.think_time.sample_ns(&mut self.rng);
                start.after(self.rng.uniform_u64(0, think_ns.saturating_sub(1)))
            })
            .collect()
    }

    /// User `user` sends its next request at `now`.
    pub fn start(&mut self, user: u32, stack: &mut TcpStack, now: SimTime, warmup_end: SimTime) {
        let state = &mut self.users[user as usize];
        if state.requests_left == Some(0) {
            return;
        }
        state.requests_left = state.requests_left.map(|n| n - 1);
        let pair = pair_of(self.first, user);
        stack.reset_pair(pair);
        let request_bytes = self.request_size.sample(&mut self.rng);
        let response_bytes = self.response_size.sample(&mut self.rng);
        let TcpStack { slots, out } = stack;
        let client = &mut slots[pair].endpoint;
        client.sender.open();
        client.sender.write(request_bytes);
        client.output(now, out);
        state.exchange = Some(Exchange {
            start: now,
            request_bytes,
            response_bytes,
            answered: false,
            done: false,
            closed: false,
        });
        state.delivered_seen = 0;
        self.stats.on_start(now, warmup_end);
    }

    /// Reacts to activity on user `user`'s connection at `now`; returns when the user sends
    /// its next request, once its connection has closed.
    pub fn progress(
        &mut self,
        user: u32,
        stack: &mut TcpStack,
        now: SimTime,
        warmup_end: SimTime,
    ) -> Option<SimTime> {
        let pair = pair_of(self.first, user);
        let state = &mut self.users[user as usize];
        let exchange = state.exchange.as_mut()?;
        let TcpStack { slots, out } = stack;
        let server = &mut slots[pair.peer()].endpoint;
        if !exchange.answered && server.receiver.delivered_bytes() >= exchange.request_bytes {
            exchange.answered = true;
            server.sender.write(exchange.response_bytes);
            server.sender.close();
            server.output(now, out);
        }
        let server_done = server.sender.all_acked();
        let client = &mut slots[pair].endpoint;
        let delivered = client.receiver.delivered_bytes();
        let new_bytes = delivered - state.delivered_seen;
        state.delivered_seen = delivered;
        self.stats.on_delivered(user, new_bytes, now, warmup_end);
        if !exchange.done && delivered >= exchange.response_bytes {
            exchange.done = true;
            self.stats.on_complete(user, exchange.start, now, warmup_end);
        }
        if client.receiver.fin_received() && !client.sender.is_closed() {
            client.sender.close();
            client.output(now, out);
        }
        if !exchange.closed && server_done && client.sender.all_acked() && client.receiver.fin_received() {
            exchange.closed = true;
            if state.requests_left != Some(0) {
                return Some(now.after(self.think_time.sample_ns(&mut self.rng)));
            }
        }
        None
    }

    /// Number of users.
    pub fn user_count(&self) -> u32 {
        self.users.len() as u32
    }
}

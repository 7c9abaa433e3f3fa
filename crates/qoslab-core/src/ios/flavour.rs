//! Which class scheduler a configuration's router runs — pre-HQF IOS, IOS with the
//! hierarchical queuing framework (HQF), or IOS XE — told by the user or read from the
//! configuration:
//!
//! * `version 16.x` and later is IOS XE (its releases are numbered from 16, "Everest").
//! * `version 15.x` is classic IOS 15 with HQF — unless the configuration uses syntax only
//!   IOS XE accepts, for IOS XE 3.x also writes `version 15.x` (XE 3.16 is 15.5(3)S).
//! * `version 12.x` and earlier is taken as pre-HQF: the line does not show the release
//!   train, and HQF came with 12.4(20)T, so such a router is told with `scheduler: hqf`.
//! * Without a `version` line, IOS XE syntax means IOS XE; otherwise pre-HQF, the scheduler
//!   of the studies' routers.
//!
//! Syntax only IOS XE accepts: `priority level`, `bandwidth remaining ratio`, `queue-limit N
//! bytes|ms|us` (classic IOS counts a class queue in packets). Syntax IOS XE
//! refuses: `max-reserved-bandwidth` and legacy queuing (`priority-group`,
//! `custom-queue-list`), which IOS XE replaced by MQC. A configuration with both, or whose
//! syntax contradicts its version or what the user said, is an error at the line that
//! contradicts, naming the flavour that accepts it.

use super::config::{Diagnostic, IosConfig};
use crate::qdisc::cbwfq::Scheduler;

/// The scheduler a configuration runs under, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flavour {
    /// The class scheduler.
    pub scheduler: Scheduler,
    /// Why: `"told"`, or what in the configuration says so.
    pub reason: String,
}

/// The flavour of `config`, `told` by the user or inferred.
pub fn flavour(config: &IosConfig, told: Option<Scheduler>) -> Result<Flavour, Diagnostic> {
    if let (Some((xe_at, xe)), Some((classic_at, classic))) = (config.xe_syntax, config.classic_syntax) {
        let (at, what, other, other_at) = if xe_at > classic_at {
            (xe_at, xe, classic, classic_at)
        } else {
            (classic_at, classic, xe, xe_at)
        };
        return Err(Diagnostic::error(
            at,
            format!(
                "`{what}` and `{other}` (line {}) come from different IOS flavours: only IOS XE accepts `{xe}`, only classic IOS accepts `{classic}`",
                other_at.0
            ),
            "give the configuration of one router: remove the commands of the other flavour",
        ));
    }
    // The first command of one flavour's syntax, refused under a scheduler of the other.
    let refuse = |syntax: Option<(super::config::Place, &str)>, flavour: &str, under: &str, hint: &str| {
        syntax.map_or(Ok(()), |(at, what)| {
            Err(Diagnostic::error(at, format!("`{what}` is {flavour} syntax, which {under} refuses"), hint))
        })
    };
    let xe_hint = "set the scheduler to `xe` if this is an IOS XE router, or remove the command";
    let refuse_xe_syntax = |under: &str| refuse(config.xe_syntax, "IOS XE", under, xe_hint);
    let classic_hint =
        "remove the command, or set the scheduler to `pre-hqf` or `hqf` if this is a classic IOS router";
    let refuse_classic_syntax =
        |under: &str| refuse(config.classic_syntax, "classic IOS", under, classic_hint);
    if let Some(scheduler) = told {
        match scheduler {
            Scheduler::Xe => refuse_classic_syntax("IOS XE")?,
            _ => refuse_xe_syntax("classic IOS")?,
        }
        return Ok(Flavour { scheduler, reason: "told".into() });
    }
    let Some((version, at)) = &config.version else {
        return Ok(match config.xe_syntax {
            Some((at, what)) => Flavour {
                scheduler: Scheduler::Xe,
                reason: format!("`{what}` at line {} is IOS XE syntax", at.0),
            },
            None => Flavour { scheduler: Scheduler::PreHqf, reason: "no `version` line".into() },
        });
    };
    let major: Option<u32> = version.split('.').next().and_then(|m| m.parse().ok());
    let line = at.0;
    match major {
        Some(16..) => {
            refuse_classic_syntax(&format!("IOS XE (`version {version}`)"))?;
            Ok(Flavour {
                scheduler: Scheduler::Xe,
                reason: format!("`version {version}` (line {line}) is IOS XE"),
            })
        }
        Some(15) => Ok(match config.xe_syntax {
            Some((at, what)) => Flavour {
                scheduler: Scheduler::Xe,
                reason: format!(
                    "`version {version}` (line {line}) with `{what}` (line {}): IOS XE 3.x",
                    at.0
                ),
            },
            None => Flavour {
                scheduler: Scheduler::Hqf,
                reason: format!("`version {version}` (line {line}) is classic IOS 15, with HQF"),
            },
        }),
        Some(_) => {
            refuse_xe_syntax(&format!("`version {version}`"))?;
            Ok(Flavour {
                scheduler: Scheduler::PreHqf,
                reason: format!(
                    "`version {version}` (line {line}): pre-HQF (a 12.4(20)T or later release runs HQF: tell qoslab `hqf`)"
                ),
            })
        }
        None => Err(Diagnostic::error(
            (at.0, at.1),
            format!("`{version}` is not an IOS version number"),
            "write the release as IOS prints it (`version 15.4`), or remove the line",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ios::parse;

    fn of(text: &str, told: Option<Scheduler>) -> Result<Flavour, Diagnostic> {
        flavour(&parse(text), told)
    }

    #[test]
    fn versions_and_syntax() {
        let xe_class = "policy-map P\n class class-default\n  bandwidth remaining ratio 4\n";
        let cases = [
            ("version 17.3\n", Scheduler::Xe),
            ("version 16.9\n", Scheduler::Xe),
            ("version 15.4\n", Scheduler::Hqf),
            ("version 12.4\n", Scheduler::PreHqf),
            ("hostname r1\n", Scheduler::PreHqf),
        ];
        for (text, scheduler) in cases {
            assert_eq!(of(text, None).unwrap().scheduler, scheduler, "{text}");
        }
        assert_eq!(of(&format!("version 15.5\n{xe_class}"), None).unwrap().scheduler, Scheduler::Xe);
        assert_eq!(of(xe_class, None).unwrap().scheduler, Scheduler::Xe);
        assert_eq!(of("version 12.4\n", Some(Scheduler::Hqf)).unwrap().reason, "told");
    }

    #[test]
    fn contradictions_are_errors_at_their_line() {
        let xe_class = "policy-map P\n class class-default\n  bandwidth remaining ratio 4\n";
        let classic = "interface Serial0\n max-reserved-bandwidth 90\n";
        let e = of(&format!("{xe_class}{classic}"), None).unwrap_err();
        assert_eq!(
            (e.line, e.message.contains("only classic IOS accepts `max-reserved-bandwidth`")),
            (5, true),
            "{e:?}"
        );
        let e = of(&format!("version 12.4\n{xe_class}"), None).unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (4, "`bandwidth remaining ratio` is IOS XE syntax, which `version 12.4` refuses")
        );
        let e = of(&format!("version 17.6\n{classic}"), None).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.message.contains("classic IOS syntax, which IOS XE (`version 17.6`) refuses"),
            "{}",
            e.message
        );
        let e = of(xe_class, Some(Scheduler::Hqf)).unwrap_err();
        assert_eq!(e.line, 3);
        let e = of("version banana\n", None).unwrap_err();
        assert_eq!((e.line, e.column), (1, 9));
    }
}

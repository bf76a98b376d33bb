//! The two JetStream streams, created when missing and checked when
//! present: `VIGIL` (subjects `vigil.b.>`, file storage, limits retention,
//! a maximum age, a 2-minute duplicate window, the partition count in its
//! description) and `VIGIL_SCHEMA` (subjects `vigil.s.>`, one message per
//! subject).

use std::time::Duration;

use async_nats::jetstream::context::{CreateStreamErrorKind, GetStreamErrorKind};
use async_nats::jetstream::ErrorCode;
use async_nats::jetstream::stream::{Config, RetentionPolicy, StorageType};
use async_nats::jetstream::Context;

use super::subjects::{
    describe, partitions_in, BATCH_SUBJECTS, DEFAULT_PARTITIONS, SCHEMA_STREAM, SCHEMA_SUBJECTS,
    STREAM,
};

pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);
pub const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);

/// What the command line says about the streams.
#[derive(Debug, Clone)]
pub struct StreamOptions {
    /// `--nats-partitions`, when given (else the stream's, or 8 for a new one).
    pub partitions: Option<u32>,
    /// `--nats-max-age`, when given (else 7 days for a new stream).
    pub max_age: Option<Duration>,
}

#[derive(Debug)]
pub enum SetupError {
    /// Nothing to retry: a stream that is not vigil's, a partition count
    /// that does not match.
    Fatal(String),
    /// JetStream is not reachable (yet).
    Retry(String),
}

/// Makes sure both streams are there; returns the partition count.
pub async fn ensure(js: &Context, o: &StreamOptions) -> Result<u32, SetupError> {
    let partitions = ensure_one(js, batch_config(o), |c| check_batches(c, o)).await?;
    ensure_one(js, schema_config(), check_schemas).await?;
    Ok(partitions)
}

fn batch_config(o: &StreamOptions) -> Config {
    let partitions = o.partitions.unwrap_or(DEFAULT_PARTITIONS);
    Config {
        name: STREAM.into(),
        description: Some(describe(partitions)),
        subjects: vec![BATCH_SUBJECTS.into()],
        storage: StorageType::File,
        retention: RetentionPolicy::Limits,
        max_age: o.max_age.unwrap_or(DEFAULT_MAX_AGE),
        duplicate_window: DUPLICATE_WINDOW,
        ..Default::default()
    }
}

fn schema_config() -> Config {
    Config {
        name: SCHEMA_STREAM.into(),
        description: Some("vigil collect: each producer stream's hello with its whole event table".into()),
        subjects: vec![SCHEMA_SUBJECTS.into()],
        storage: StorageType::File,
        retention: RetentionPolicy::Limits,
        max_messages_per_subject: 1,
        ..Default::default()
    }
}

/// Gets the stream (creating it from `want` when it is missing) and checks it.
async fn ensure_one<T>(
    js: &Context,
    want: Config,
    check: impl Fn(&Config) -> Result<T, SetupError>,
) -> Result<T, SetupError> {
    let retry = |e: &dyn std::fmt::Display| SetupError::Retry(format!("stream {}: {e}", want.name));
    let found = match js.get_stream(&want.name).await {
        Ok(s) => s.cached_info().config.clone(),
        Err(e) => match e.kind() {
            GetStreamErrorKind::JetStream(j) if j.error_code() == ErrorCode::STREAM_NOT_FOUND => {
                match js.create_stream(want.clone()).await {
                    Ok(s) => {
                        eprintln!("vigil collect: created JetStream stream {}", want.name);
                        s.cached_info().config.clone()
                    }
                    Err(e) => match e.kind() {
                        // Another collector created it meanwhile.
                        CreateStreamErrorKind::JetStream(j)
                            if j.error_code() == ErrorCode::STREAM_NAME_EXIST =>
                        {
                            let s = js.get_stream(&want.name).await.map_err(|e| retry(&e))?;
                            s.cached_info().config.clone()
                        }
                        _ => return Err(retry(&e)),
                    },
                }
            }
            _ => return Err(retry(&e)),
        },
    };
    check(&found)
}

fn not_ours(c: &Config, what: String) -> SetupError {
    SetupError::Fatal(format!(
        "JetStream stream {} exists with {what}: it is not one vigil collect made (delete it, or use another server)",
        c.name
    ))
}

fn check_common(c: &Config, subjects: &str) -> Result<(), SetupError> {
    if c.subjects != [subjects] {
        return Err(not_ours(c, format!("subjects {:?}, not [{subjects:?}]", c.subjects)));
    }
    if c.retention != RetentionPolicy::Limits {
        return Err(not_ours(c, format!("retention {:?}, not limits", c.retention)));
    }
    if c.storage != StorageType::File {
        eprintln!(
            "vigil collect: warning: JetStream stream {} keeps its messages in memory (storage {:?}): \
             what the collector acknowledges is lost if nats-server stops",
            c.name, c.storage
        );
    }
    Ok(())
}

fn check_batches(c: &Config, o: &StreamOptions) -> Result<u32, SetupError> {
    check_common(c, BATCH_SUBJECTS)?;
    let Some(n) = c.description.as_deref().and_then(partitions_in) else {
        return Err(not_ours(c, "no partition count in its description".into()));
    };
    if let Some(want) = o.partitions.filter(|&w| w != n) {
        return Err(SetupError::Fatal(format!(
            "JetStream stream {STREAM} was created with {n} partitions, not --nats-partitions {want} \
             (the count is fixed: each producer stream stays in its partition); use {n}, or delete \
             the stream to start over"
        )));
    }
    if let Some(age) = o.max_age.filter(|&a| a != c.max_age) {
        eprintln!(
            "vigil collect: warning: JetStream stream {STREAM} keeps messages for {:?}, not \
             --nats-max-age {:?}: the stream's setting stays",
            c.max_age, age
        );
    }
    if c.duplicate_window < DUPLICATE_WINDOW {
        eprintln!(
            "vigil collect: warning: JetStream stream {STREAM}'s duplicate window is {:?}: a batch \
             resent later than that is stored twice in JetStream (the collectors' stores still keep it once)",
            c.duplicate_window
        );
    }
    Ok(n)
}

fn check_schemas(c: &Config) -> Result<(), SetupError> {
    check_common(c, SCHEMA_SUBJECTS)?;
    if c.max_messages_per_subject != 1 {
        return Err(not_ours(c, format!("max_msgs_per_subject {}, not 1", c.max_messages_per_subject)));
    }
    Ok(())
}

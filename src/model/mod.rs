//! The project model: facts from every file joined into one picture of the
//! project's idempotency stores. Rules read it; they never parse. Each domain
//! (headers here; schema, retention and Redis with their issues) keeps its
//! joined view in a submodule built once per run.

pub mod flows;
pub mod headers;
pub mod key_formats;
pub mod migrations;
pub mod redis;
pub mod retention;
pub mod retries;
pub mod schema;
pub mod writers;

use crate::config::Config;
use crate::frontend::FileFacts;
use crate::source::SourceMap;

pub struct ProjectModel {
    /// Per-file facts, in `FileId` order.
    pub files: Vec<FileFacts>,
    pub headers: headers::HeaderModel,
    pub retention: retention::RetentionModel,
    /// Migration histories replayed into tables; which tables are stores.
    pub schema: schema::SchemaModel,
    /// Redis instances, their eviction settings and what links them to stores.
    pub redis: redis::RedisModel,
    /// Redis key formats of request-key stores that name no caller.
    pub key_formats: key_formats::KeyFormatModel,
    /// Rust functions joined across the crate: events, summaries, traces.
    pub flows: flows::FlowModel,
    /// Retries, their worst-case spans, and the keyed requests they resend.
    pub retries: retries::RetryModel,
}

impl ProjectModel {
    /// How many distinct idempotency stores the model holds: tables that are
    /// stores, and every other store a retention or a Redis instance names.
    pub fn store_count(&self) -> usize {
        use crate::frontend::StoreRef;
        let mut names: std::collections::BTreeSet<(u8, String)> = self
            .schema
            .stores()
            .map(|(t, _)| (0, t.key.clone()))
            .collect();
        for r in &self.retention.items {
            names.insert(match &r.target {
                StoreRef::Table(t) => (0, t.rsplit('.').next().unwrap_or(t).to_ascii_lowercase()),
                StoreRef::RedisPrefix(p) => (1, p.clone()),
                StoreRef::ConfigPath(p) => (2, p.clone()),
                StoreRef::Constant(c) => (3, c.clone()),
            });
        }
        for i in self.redis.instances.iter().filter(|i| !i.links.is_empty()) {
            names.insert((4, i.name.clone()));
        }
        names.len()
    }

    /// Build the model. The parts that read only the files run side by side
    /// on the current rayon pool (the caller's `install`); the joins that
    /// need another part wait for it.
    pub fn build(mut files: Vec<FileFacts>, sources: &SourceMap, config: &Config) -> Self {
        use rayon::prelude::*;
        let ((headers, retention), ((schema, redis), settings)) = rayon::join(
            || {
                rayon::join(
                    || headers::HeaderModel::build(&files),
                    || retention::RetentionModel::build(&files, sources, config),
                )
            },
            || {
                rayon::join(
                    || {
                        rayon::join(
                            || {
                                let mut schema =
                                    schema::SchemaModel::build(&files, sources, config);
                                schema.mark_treated_as_stores(&files);
                                schema
                            },
                            || redis::RedisModel::build(&files, sources, config),
                        )
                    },
                    // The configuration values retry policies may read, taken now.
                    || retries::Settings::read(&files, sources),
                )
            },
        );
        // Config trees and string literals have no reader past this point:
        // free them before the flow model, the largest part, is built.
        files.par_iter_mut().for_each(FileFacts::release_extracted);
        let (key_formats, flows) = rayon::join(
            || key_formats::KeyFormatModel::build(&files, config),
            || flows::FlowModel::build(&files, sources, config, &schema),
        );
        let retries = retries::RetryModel::build(&files, settings, config, &flows);
        ProjectModel {
            files,
            headers,
            retention,
            schema,
            redis,
            key_formats,
            flows,
            retries,
        }
    }
}

//! Retentions joined across the project: each file's `RetentionFact`s (SQL,
//! and any front end that can settle its value alone), Rust retentions folded
//! with constants from every file of the crate, and config keys that set a
//! store's retention; each tied to a counterparty. The rule
//! `ttl-below-replay-horizon` compares them with the catalogue.
//!
//! Attribution, in order:
//! 1. `[[store]]` in idemlint.toml whose `table` or `key_prefix` names the
//!    store (`store = false` drops it; `counterparty` names the entry);
//! 2. match words of a catalogue entry that has an inbound window, found in
//!    the names around the retention, nearest first (table, key prefix or
//!    config path; then constants and the function; then the file paths,
//!    except for a table whose name says it holds request keys;
//!    then `stripe` when the module talks to Stripe): the first name that
//!    matches decides; when it matches several, the longest horizon wins;
//! 3. the code that writes or reads the store (`model::writers`): a file
//!    that verifies a provider's signature, handles its event types, or whose
//!    path names the provider's handler;
//! 4. unknown: the default horizon applies.
//!
//! Every store is taken as inbound (it guards against a counterparty sending
//! the same event again), unless its names say outbound (`outbound`,
//! `outgoing`): outbound key retention is the counterparty's business and is
//! never compared with a replay horizon.

use crate::config::Config;
use crate::duration::Duration;
use crate::facts::config::{content_span, ConfEntry, ConfValue};
use crate::facts::retention::StoreRef;
use crate::facts::retention::{
    self, fold_duration, ConstExpr, DurDef, PendingRetention, CONFIG_REF,
};
use crate::facts::FileFacts;
use crate::horizons::Catalogue;
use crate::knowledge;
use crate::model::settings::{env_default, given_settings, join_key, Given};
use crate::source::{FileId, SourceMap, Span};
use std::collections::{HashMap, HashSet};

/// How a retention's counterparty was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attribution {
    /// `[[store]] counterparty = ...` in idemlint.toml.
    Declared(String),
    /// A match word of the counterparty in `name`.
    Named {
        id: String,
        name: String,
    },
    /// The code that writes (or reads) the store names the counterparty.
    Writer(crate::model::writers::Writer),
    /// A store of keys this service sends (its names say so): `id` is the
    /// counterparty whose outbound key retention bounds it.
    Outbound {
        id: String,
        name: String,
    },
    Unknown,
}

impl Attribution {
    pub fn id(&self) -> Option<&str> {
        match self {
            Attribution::Writer(w) => Some(&w.counterparty),
            Attribution::Declared(id)
            | Attribution::Named { id, .. }
            | Attribution::Outbound { id, .. } => Some(id),
            Attribution::Unknown => None,
        }
    }
}

/// One retention of one idemlint store, with where its number is written.
#[derive(Debug, Clone)]
pub struct Retention {
    /// Where the duration is written (a constant may live in another file
    /// than the Redis write that uses it).
    pub file: FileId,
    pub span: Span,
    pub duration: Duration,
    pub target: StoreRef,
    pub via: String,
    pub context: Vec<String>,
    /// A bare number whose unit was taken as seconds by convention.
    pub unit_assumed: bool,
    /// Where the store is written with this retention (a Redis write), when
    /// that is not where the number is.
    pub site: Option<(FileId, Span)>,
    pub attribution: Attribution,
    /// More places a finding shows, with their text: where code uses a
    /// setting a configuration file gives, the `DELETE` a bound cut-off
    /// is for.
    pub labels: Vec<(FileId, Span, String)>,
}

#[derive(Debug, Default)]
pub struct RetentionModel {
    pub items: Vec<Retention>,
    pub catalogue: Option<Catalogue>,
    /// ORM models' retentions, until the schema says which are stores
    /// ([`RetentionModel::join_orm`]).
    orm: Vec<Retention>,
}

impl RetentionModel {
    pub fn catalogue(&self) -> Catalogue {
        self.catalogue.clone().unwrap_or_else(Catalogue::builtin)
    }

    pub fn build(files: &[FileFacts], sources: &SourceMap, config: &Config) -> Self {
        let catalogue = Catalogue::with_config(config);
        let mut items = Vec::new();
        for f in files {
            for r in &f.retention {
                items.push(Retention {
                    file: f.file,
                    span: r.span,
                    duration: r.duration,
                    target: r.target.clone(),
                    via: r.via.clone(),
                    context: r.context.clone(),
                    unit_assumed: false,
                    site: None,
                    attribution: Attribution::Unknown,
                    labels: Vec::new(),
                });
            }
            if let (Some(doc), Some(src)) = (&f.conf, sources.files.get(f.file)) {
                items.extend(config_retentions(f.file, &doc.entries, src.text()));
            }
        }
        items.extend(rust_retentions(files, sources));
        items.extend(param_cutoffs(files, sources));
        // An ORM model's retention waits for the schema
        // ([`RetentionModel::join_orm`]).
        let (orm, items): (Vec<_>, Vec<_>) = items
            .into_iter()
            .partition(|r| r.context.iter().any(|c| c == retention::ORM_CONTEXT));
        let kept = items
            .into_iter()
            .filter_map(|item| attribute_item(item, files, sources, config, &catalogue))
            .collect();
        RetentionModel {
            items: kept,
            catalogue: Some(catalogue),
            orm,
        }
    }

    /// The retentions of ORM models' rows ([`retention::ORM_CONTEXT`])
    /// whose table the schema makes a store, named by the table; the
    /// others are dropped. A model whose row's column some file hands out
    /// as an idempotency key (`sent_key_models`) holds keys the service
    /// sends: its counterparty's outbound key retention bounds it.
    pub fn join_orm(
        &mut self,
        schema: &crate::model::schema::SchemaModel,
        files: &[FileFacts],
        sources: &SourceMap,
        config: &Config,
    ) {
        let catalogue = self.catalogue();
        let sent: HashSet<&str> = files
            .iter()
            .filter(|f| !f.test_path)
            .filter_map(|f| f.code.as_ref())
            .flat_map(|c| c.retention.sent_key_models.iter().map(String::as_str))
            .collect();
        for mut item in std::mem::take(&mut self.orm) {
            let StoreRef::Table(model) = &item.target else {
                continue;
            };
            let Some(t) = schema.find_table(model) else {
                continue;
            };
            if schema.store(t).is_none() && !schema.claims_delivery_key(t) {
                continue;
            }
            item.context.retain(|c| c != retention::ORM_CONTEXT);
            if sent.contains(model.as_str()) {
                item.context.push(retention::SENT_KEY_CONTEXT.to_string());
            }
            item.target = StoreRef::Table(t.name.clone());
            if let Some(item) = attribute_item(item, files, sources, config, &catalogue) {
                self.items.push(item);
            }
        }
    }
}

/// One retention tied to its counterparty (the order in the module's
/// documentation); `None` when it is no store's (`[[store]] store =
/// false`, a zero duration, keys sent to a counterparty with no known key
/// retention).
fn attribute_item(
    mut item: Retention,
    files: &[FileFacts],
    sources: &SourceMap,
    config: &Config,
    catalogue: &Catalogue,
) -> Option<Retention> {
    let path = |f: FileId| {
        sources
            .files
            .get(f)
            .map(|s| s.path.clone())
            .unwrap_or_default()
    };

    if item.duration.secs == 0 {
        // `0` means "never expires" in most settings, and is no
        // valid Redis expiry.
        return None;
    }
    // The store's own name first, the file that writes it before
    // the file that holds the number.
    let own = own_name(&item.target);
    // A table whose name says it holds request keys
    // (`idempotency_keys`) is not named by the file that purges it:
    // a migration's file name says what the migration does
    // (`add_stripe_customer_id_and_purge.sql`), and a request-key
    // store's replays come from the service's own clients.
    let request_table = matches!(&item.target, StoreRef::Table(t)
            if !knowledge::stores().event_table.matches(t.rsplit('.').next().unwrap_or(t)))
        || item
            .context
            .iter()
            .any(|c| c == retention::REQUEST_KEY_CONTEXT);
    item.context.insert(0, own);
    if !request_table {
        if let Some((site, _)) = item.site {
            item.context.push(path(site));
        }
        item.context.push(path(item.file));
    }
    let talks_to_stripe = files
        .get(item.file)
        .is_some_and(|f| f.hints.talks_to_stripe)
        || item
            .site
            .and_then(|(s, _)| files.get(s))
            .is_some_and(|f| f.hints.talks_to_stripe);
    if talks_to_stripe {
        item.context.push("stripe".to_string());
    }
    let words = knowledge::retention_words();
    let outbound = item.context.iter().any(|c| words.is_outbound(c))
        || names_counterparty_api(&own_name(&item.target), catalogue);
    if outbound {
        // Keys this service sends: the counterparty's outbound key
        // retention bounds them, never its replay horizon; with no
        // such window known there is nothing to compare.
        let a = attribute_outbound(&item.context, catalogue)?;
        item.attribution = a;
        return Some(item);
    }
    match declared(&item.target, config) {
        Some(Declared::NotAStore) => return None,
        Some(Declared::Counterparty(id)) if catalogue.get(&id).is_some() => {
            item.attribution = Attribution::Declared(id);
        }
        _ => item.attribution = attribute(&item.context, catalogue),
    }
    if item.attribution == Attribution::Unknown {
        if let Some(w) =
            crate::model::writers::counterparty_writer(&item.target, files, sources, catalogue)
        {
            item.attribution = Attribution::Writer(w);
        }
    }
    Some(item)
}

enum Declared {
    NotAStore,
    Counterparty(String),
}

/// What `[[store]]` in idemlint.toml says of a store.
fn declared(target: &StoreRef, config: &Config) -> Option<Declared> {
    let bare = |t: &str| {
        t.rsplit('.')
            .next()
            .unwrap_or(t)
            .trim_matches('"')
            .to_ascii_lowercase()
    };
    let decl = config.store.iter().find(|s| match target {
        StoreRef::Table(t) => s.table.as_deref().is_some_and(|d| bare(d) == bare(t)),
        StoreRef::RedisPrefix(p) => s
            .key_prefix
            .as_deref()
            .is_some_and(|d| !d.is_empty() && (p.starts_with(d) || d.starts_with(p.as_str()))),
        StoreRef::ConfigPath(_) | StoreRef::Constant(_) => false,
    })?;
    if !decl.store {
        return Some(Declared::NotAStore);
    }
    decl.counterparty.clone().map(Declared::Counterparty)
}

/// The counterparty whose match words appear in the names around a store.
/// Names are tried nearest first (the store's own name, then constants and
/// functions, then file paths): the first name that matches any counterparty
/// decides, so `dedup:paypal:` keys written from `webhooks/stripe.rs` are
/// PayPal's. When one name matches several, the longest horizon wins: a
/// store that sees both must outlive both.
/// The store's own name: table, key prefix, config path or constant.
fn own_name(target: &StoreRef) -> String {
    match target {
        StoreRef::Table(n)
        | StoreRef::RedisPrefix(n)
        | StoreRef::ConfigPath(n)
        | StoreRef::Constant(n) => n.clone(),
    }
}

/// Whether a store's own name puts a counterparty's match word right before
/// a word for its API (`stripe.api.idempotency_key_reuse_window`,
/// `StripeClient`): the keys are the ones sent to that API.
pub fn names_counterparty_api(name: &str, catalogue: &Catalogue) -> bool {
    let api = &knowledge::retention_words().outbound_after_counterparty;
    let words = knowledge::name_words(name);
    words.windows(2).any(|pair| {
        api.iter().any(|a| *a == pair[1])
            && catalogue
                .counterparties
                .iter()
                .any(|c| c.r#match.iter().any(|m| m.eq_ignore_ascii_case(&pair[0])))
    })
}

/// The counterparty of an outbound store: the first name that matches one
/// with an outbound key retention.
pub fn attribute_outbound(context: &[String], catalogue: &Catalogue) -> Option<Attribution> {
    context.iter().find_map(|name| {
        catalogue
            .counterparties
            .iter()
            .filter(|c| c.matches(name))
            .find(|c| c.outbound_key_retention().is_some())
            .map(|c| Attribution::Outbound {
                id: c.id.clone(),
                name: name.clone(),
            })
    })
}

pub fn attribute(context: &[String], catalogue: &Catalogue) -> Attribution {
    for name in context {
        let best = catalogue
            .counterparties
            .iter()
            .filter(|c| c.matches(name))
            .filter_map(|c| c.inbound_horizon().map(|(_, h)| (h, c)))
            .max_by_key(|(h, _)| *h);
        if let Some((_, c)) = best {
            return Attribution::Named {
                id: c.id.clone(),
                name: name.clone(),
            };
        }
    }
    Attribution::Unknown
}

/// The Rust constants of every file by name, for the models that fold
/// expressions through them (retentions and retry policies). The
/// constants a file let go ([`LetGoDefs`]) are read again from its text
/// when a lookup names one of them.
pub(super) struct ConstDefs<'a> {
    /// By name: (index in `files`, file, definition), in file order.
    by_name: HashMap<&'a str, Vec<Def<'a>>>,
    /// The indices in `files` of the files that let their constants go.
    let_go: Vec<usize>,
    files: &'a [FileFacts],
    sources: &'a SourceMap,
}

type Def<'a> = (usize, FileId, &'a DurDef);

impl<'a> ConstDefs<'a> {
    pub(super) fn new(files: &'a [FileFacts], sources: &'a SourceMap) -> Self {
        let mut by_name: HashMap<&str, Vec<Def<'a>>> = HashMap::new();
        let mut let_go = Vec::new();
        for (i, f) in files.iter().enumerate() {
            if let Some(r) = &f.code {
                for d in &r.retention.defs {
                    by_name
                        .entry(d.name.as_str())
                        .or_default()
                        .push((i, f.file, d));
                }
                if r.retention.let_go.is_some() {
                    let_go.push(i);
                }
            }
        }
        ConstDefs {
            by_name,
            let_go,
            files,
            sources,
        }
    }

    /// A name's definition: the one in `file`, else the one the crate has
    /// (several different ones: none).
    pub(super) fn find(&self, file: FileId, name: &str) -> Option<(FileId, &'a DurDef)> {
        let kept = self.by_name.get(name).map_or(&[][..], Vec::as_slice);
        // A field a struct literal sets (`self.ttl`) is that file's own:
        // another file's struct may have a field of the same name.
        if name.starts_with(retention::SELF_FIELD) {
            return kept
                .iter()
                .find(|(_, f, _)| *f == file)
                .map(|&(_, f, d)| (f, d));
        }
        let again = self.read_again(name);
        if again.is_empty() {
            return pick(file, kept);
        }
        let mut all: Vec<Def<'a>> = kept.iter().copied().chain(again).collect();
        // In file order, as if they had been kept (a sort that keeps a
        // file's own in their order).
        all.sort_by_key(|(i, ..)| *i);
        pick(file, &all)
    }

    /// The definitions of `name` among the constants files let go, read
    /// again from the files that may define it.
    fn read_again(&self, name: &str) -> Vec<Def<'a>> {
        if self.let_go.is_empty() {
            return Vec::new();
        }
        let digest = retention::name_digest(name);
        let mut out = Vec::new();
        for &i in &self.let_go {
            let f = &self.files[i];
            let Some(l) = f.code.as_ref().and_then(|r| r.retention.let_go.as_ref()) else {
                continue;
            };
            if !l.may_define(digest) {
                continue;
            }
            let text = self.sources.text(f.file);
            if let Some(defs) = l.defs(text, self.sources.path(f.file)) {
                out.extend(
                    defs.iter()
                        .filter(|d| d.name == name)
                        .map(|d| (i, f.file, d)),
                );
            }
        }
        out
    }
}

/// Of a name's definitions in file order: the one in `file`, else the
/// first when all agree.
fn pick<'a>(file: FileId, all: &[Def<'a>]) -> Option<(FileId, &'a DurDef)> {
    if let Some(&(_, f, d)) = all.iter().find(|(_, f, _)| *f == file) {
        return Some((f, d));
    }
    let &(_, f, first) = all.first()?;
    all.iter()
        .all(|(_, _, d)| d.expr == first.expr)
        .then_some((f, first))
}

/// Rust retentions, their constants looked up across the crate. A name
/// resolves to its definition in the same file, else to the one definition
/// in the crate with that name (several different ones: unresolved).
fn rust_retentions(files: &[FileFacts], sources: &SourceMap) -> Vec<Retention> {
    let defs = ConstDefs::new(files, sources);
    let find = |file: FileId, name: &str| defs.find(file, name);
    let given = settings_read(files, sources);
    // Constants used as a Redis expiry are reported at that write, not again
    // on their own.
    let used: Vec<&str> = files
        .iter()
        .filter_map(|f| f.code.as_ref())
        .flat_map(|r| &r.retention.pending)
        .filter_map(|p| p.direct_ref.as_deref())
        .collect();
    let mut out = Vec::new();
    for f in files {
        let Some(r) = &f.code else { continue };
        for p in &r.retention.pending {
            if let StoreRef::Constant(name) = &p.target {
                if p.standalone && used.contains(&name.as_str()) {
                    continue;
                }
            }
            if let Some(item) = fold_pending(f.file, p, &find, &given) {
                out.extend(keyed_handler(item, files));
            }
        }
    }
    out
}

/// Retentions of ORM deletes whose cut-off their function takes as a
/// parameter (`delete_before(self, before)`), from the calls in any file
/// that pass a function of that name the clock minus a duration, at the
/// parameter's position or by its name. A name that more than one such
/// delete has is not joined: which one a call reaches is not known.
fn param_cutoffs(files: &[FileFacts], sources: &SourceMap) -> Vec<Retention> {
    let mut by_name: HashMap<&str, Vec<(FileId, &retention::ParamCutoff)>> = HashMap::new();
    for f in files.iter().filter(|f| !f.test_path) {
        for p in f.code.iter().flat_map(|c| &c.retention.param_cutoffs) {
            by_name
                .entry(p.function.as_str())
                .or_default()
                .push((f.file, p));
        }
    }
    if by_name.is_empty() {
        return Vec::new();
    }
    let defs = ConstDefs::new(files, sources);
    let mut out = Vec::new();
    for f in files.iter().filter(|f| !f.test_path) {
        for a in f.code.iter().flat_map(|c| &c.retention.cutoff_args) {
            let Some([(pf, p)]) = by_name.get(a.callee.as_str()).map(Vec::as_slice) else {
                continue;
            };
            if a.index != Some(p.index) && a.keyword.as_deref() != Some(p.param.as_str()) {
                continue;
            }
            let lookup = |n: &str| defs.find(f.file, n).map(|(_, d)| &d.expr);
            let Some(duration) = fold_duration(&a.expr, None, &lookup) else {
                continue;
            };
            let mut context = vec![retention::ORM_CONTEXT.to_string(), p.function.clone()];
            context.extend(a.caller.iter().cloned());
            let label = format!(
                "rows whose `{}` is older than the cut-off `{}` are deleted here",
                p.column, p.param
            );
            out.push(Retention {
                file: f.file,
                span: a.span,
                duration,
                target: StoreRef::Table(p.model.clone()),
                via: p.via.clone(),
                context,
                unit_assumed: false,
                site: None,
                attribution: Attribution::Unknown,
                labels: vec![(*pf, p.at, label)],
            });
        }
    }
    out
}

/// A retention of a workflow handler's idempotency keys
/// ([`retention::HANDLER_CONTEXT`]) joined with the first call that sends
/// the handler a key: that call's file is the site whose code names the
/// counterparty. With no such call in sight the keys are the engine's own
/// and the retention is dropped. Any other retention is kept as it is.
fn keyed_handler(mut item: Retention, files: &[FileFacts]) -> Option<Retention> {
    let Some(at) = item
        .context
        .iter()
        .position(|c| c.starts_with(retention::HANDLER_CONTEXT))
    else {
        return Some(item);
    };
    let handler = item.context.remove(at);
    let handler = &handler[retention::HANDLER_CONTEXT.len()..];
    let (file, key) = files
        .iter()
        .filter(|f| !f.test_path)
        .filter_map(|f| f.code.as_ref().map(|c| (f.file, &c.handler_keys)))
        .find_map(|(file, keys)| {
            keys.iter()
                .find(|k| k.handler == handler)
                .map(|k| (file, k))
        })?;
    item.site = Some((file, key.span));
    item.labels
        .push((file, key.span, format!("`{handler}` is sent its key here")));
    Some(item)
}

/// Finds a constant's definition by name, from a file.
type FindDef<'a> = dyn Fn(FileId, &str) -> Option<(FileId, &'a DurDef)> + 'a;

/// The settings of the configuration files that the code's retentions
/// read (`settings.webhooks.ttl_secs`, `$DEDUP_TTL`), by join key.
fn settings_read(files: &[FileFacts], sources: &SourceMap) -> Settings {
    let renames = Renames::new(files);
    let mut wanted: HashSet<String> = HashSet::new();
    for r in files.iter().filter_map(|f| f.code.as_ref()) {
        let exprs = r.retention.pending.iter().map(|p| &p.expr);
        for e in exprs.chain(r.retention.defs.iter().map(|d| &d.expr)) {
            for name in retention::refs_of(e) {
                if let Some(read) = name.strip_prefix(CONFIG_REF) {
                    wanted.extend(renames.join_keys(read));
                }
            }
        }
    }
    let given = if wanted.is_empty() {
        HashMap::new()
    } else {
        given_settings(files, sources, &wanted)
    };
    Settings { given, renames }
}

/// The settings the code's retentions read, and the names serde gives
/// their fields.
struct Settings {
    given: HashMap<String, Given>,
    renames: Renames,
}

impl Settings {
    fn get(&self, read: &str) -> Option<&Given> {
        self.renames
            .join_keys(read)
            .iter()
            .find_map(|k| self.given.get(k))
    }
}

/// `#[serde(rename = "…")]`/`alias` of settings fields across the project,
/// kept where a field name has one other name only.
struct Renames(HashMap<String, String>);

impl Renames {
    fn new(files: &[FileFacts]) -> Self {
        let mut by_field: HashMap<String, Option<String>> = HashMap::new();
        for r in files.iter().filter_map(|f| f.code.as_ref()) {
            for (field, name) in &r.retention.renames {
                by_field
                    .entry(field.clone())
                    .and_modify(|o| {
                        if o.as_deref() != Some(name.as_str()) {
                            *o = None;
                        }
                    })
                    .or_insert_with(|| Some(name.clone()));
            }
        }
        Renames(
            by_field
                .into_iter()
                .filter_map(|(f, n)| Some((f, n?)))
                .collect(),
        )
    }

    /// The join keys of a setting read: as written, and with the last two
    /// names as serde renames them.
    fn join_keys(&self, read: &str) -> Vec<String> {
        let mut out: Vec<String> = join_key(read).into_iter().collect();
        if self.0.is_empty() || read.starts_with('$') {
            return out;
        }
        let segs: Vec<&str> = read.split('.').collect();
        let renamed: Vec<&str> = segs
            .iter()
            .map(|s| self.0.get(*s).map_or(*s, String::as_str))
            .collect();
        if renamed != segs {
            out.extend(join_key(&renamed.join(".")));
        }
        out
    }
}

fn fold_pending<'a>(
    file: FileId,
    p: &'a PendingRetention,
    find: &FindDef<'a>,
    given: &'a Settings,
) -> Option<Retention> {
    // The first setting of a configuration file the value takes.
    let used: std::cell::Cell<Option<&'a Given>> = std::cell::Cell::new(None);
    let lookup = |name: &str| -> Option<&'a ConstExpr> {
        if let Some(read) = name.strip_prefix(CONFIG_REF) {
            let g = given.get(read)?;
            if used.get().is_none() {
                used.set(Some(g));
            }
            return Some(&g.expr);
        }
        find(file, name).map(|(_, d)| &d.expr)
    };
    let duration = fold_duration(&p.expr, p.unit_ms, &lookup)?;
    if let Some(g) = used.get() {
        return Some(from_setting(file, p, g, duration));
    }
    let mut context = p.context.clone();
    // The number is written at the constant the expiry names, when there is
    // one; the write becomes a label.
    let direct = p.direct_ref.as_deref().and_then(|n| find(file, n));
    let (at_file, at_span) = match direct {
        Some((df, d)) => {
            context.push(d.name.clone());
            (df, d.span)
        }
        None => (file, p.span),
    };
    let site = p.site.map(|s| (file, s)).filter(|_| direct.is_some());
    Some(Retention {
        file: at_file,
        span: at_span,
        duration,
        target: p.target.clone(),
        via: p.via.clone(),
        context,
        unit_assumed: false,
        site,
        attribution: Attribution::Unknown,
        labels: p
            .labels
            .iter()
            .map(|(s, t)| (file, *s, t.clone()))
            .collect(),
    })
}

/// A retention whose number a configuration file gives: the finding is at
/// the setting, where the number is changed, with the code that uses it as
/// a label.
fn from_setting(file: FileId, p: &PendingRetention, g: &Given, duration: Duration) -> Retention {
    let used_as = match &p.target {
        StoreRef::RedisPrefix(prefix) if !prefix.is_empty() => {
            format!("used as the TTL of `{prefix}` keys here")
        }
        StoreRef::Table(t) => format!("used as the retention of `{t}` here"),
        _ => "used as the store's retention here".to_string(),
    };
    let others = match g.others {
        0 => String::new(),
        1 => " (another file gives it a smaller or equal value)".to_string(),
        n => format!(" ({n} other files give it smaller or equal values)"),
    };
    let mut labels = vec![(
        file,
        p.span,
        format!("{used_as}, set by `{}`{others}", g.shown),
    )];
    labels.extend(p.labels.iter().map(|(s, t)| (file, *s, t.clone())));
    let mut context = p.context.clone();
    context.push(g.shown.clone());
    Retention {
        file: g.file,
        span: g.span,
        duration,
        target: p.target.clone(),
        via: format!("{} set by `{}`", p.via, g.shown),
        context,
        unit_assumed: false,
        site: p.site.map(|s| (file, s)),
        attribution: Attribution::Unknown,
        labels,
    }
}

/// Config keys that set a store's retention: the key names a retention, the
/// path names a store (`stripe.webhooks.dedup_ttl`, `idempotency.ttl`,
/// `IDEMPOTENCY_TTL_SECONDS`), and neither the key nor its parent names a
/// lock or a tolerance. The unit comes from the value (`24h`, `PT24H`), else
/// from the key's suffix (`_hours`); a bare number with neither is read as
/// seconds, the common convention for TTL settings, and marked as assumed.
fn config_retentions(file: FileId, entries: &[ConfEntry], text: &str) -> Vec<Retention> {
    let words = knowledge::retention_words();
    let stores = knowledge::stores();
    // `env: [{name: IDEMPOTENCY_TTL_SECONDS, value: "86400"}]` (Kubernetes,
    // compose): the setting's name is a sibling.
    // Built on the first `value:` key, by then for the whole file.
    let mut env_names: Option<HashMap<String, &str>> = None;
    let mut out = Vec::new();
    for e in entries {
        let ConfValue::Scalar { text: value, style } = &e.value else {
            continue;
        };
        let Some(key) = e.key() else { continue };
        // The name first: most keys are not retentions, and it is the
        // cheapest thing to look at.
        let (key, dotted) = if key == "value" {
            let names = env_names.get_or_insert_with(|| {
                entries
                    .iter()
                    .filter(|e| e.key() == Some("name"))
                    .filter_map(|e| Some((e.parent_dotted(), e.scalar()?)))
                    .collect()
            });
            let parent = e.parent_dotted();
            match names.get(&parent) {
                Some(n) if words.is_retention_name(n) => (*n, format!("{parent}.{n}")),
                _ => continue,
            }
        } else if words.is_retention_name(key) {
            (key, e.dotted())
        } else {
            continue;
        };
        let parent = e
            .path
            .iter()
            .rev()
            .nth(1)
            .map(|s| s.to_string())
            .unwrap_or_default();
        if words.is_excluded(&parent) {
            continue;
        }
        if !stores.table.matches(&dotted) {
            continue;
        }
        let span = content_span(text, e.value_span, *style);
        let Some((value, span)) = env_default(value, span, text) else {
            continue;
        };
        let (duration, unit_assumed) = match value.trim().parse::<f64>() {
            Ok(_) => match crate::duration::key_suffix_unit(key) {
                Some(unit) => (crate::duration::parse(value, Some(unit)), false),
                None => (crate::duration::parse(value, Some(1.0)), true),
            },
            Err(_) => (crate::duration::parse(value, None), false),
        };
        let Some(duration) = duration else { continue };
        let context = e
            .path
            .iter()
            .map(|s| s.to_string())
            .chain(std::iter::once(key.to_string()))
            .collect();
        out.push(Retention {
            file,
            span,
            duration,
            target: StoreRef::ConfigPath(dotted.clone()),
            via: format!("config key `{dotted}`"),
            context,
            unit_assumed,
            site: None,
            attribution: Attribution::Unknown,
            labels: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::duration::{DAY, HOUR};
    use crate::source::FileKind;

    fn run(files: &[(&str, FileKind, &str)], config: &Config) -> RetentionModel {
        let (sources, facts) = super::super::parsed(files);
        RetentionModel::build(&facts, &sources, config)
    }

    fn found(m: &RetentionModel, files: &[(&str, FileKind, &str)]) -> Vec<(String, u64, String)> {
        m.items
            .iter()
            .map(|r| {
                let text = files[r.file].2;
                (
                    text[r.span.start..r.span.end].to_string(),
                    r.duration.secs,
                    r.attribution.id().unwrap_or("-").to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn redis_expiry_from_constants_in_another_module_is_folded_and_attributed() {
        let files = [
            (
                "src/time_consts.rs",
                FileKind::Rust,
                "pub const HOUR: u64 = 60 * 60;\npub const DAY: u64 = 24 * HOUR;\n",
            ),
            (
                "src/config.rs",
                FileKind::Rust,
                "use crate::time_consts::DAY;\npub const EVENT_TTL_SECS: u64 = 2 * DAY + 12 * crate::time_consts::HOUR;\n",
            ),
            (
                "src/webhooks/stripe.rs",
                FileKind::Rust,
                "async fn claim(con: &mut C, id: &str) {\n    let key = format!(\"idem:stripe:{}\", id);\n    con.set_ex(&key, 1, EVENT_TTL_SECS).await;\n}\n",
            ),
        ];
        let m = run(&files, &Config::default());
        assert_eq!(
            found(&m, &files),
            vec![(
                "2 * DAY + 12 * crate::time_consts::HOUR".to_string(),
                2 * DAY + 12 * HOUR,
                "stripe-webhooks".to_string()
            )]
        );
        assert_eq!(m.items[0].file, 1);
        assert_eq!(m.items[0].site.map(|(f, _)| f), Some(2));
    }

    /// A file that defines many constants lets them go after its parse;
    /// the lookups that name one read them again, and the model is the
    /// one it is with every constant kept: a name resolves in the same
    /// file first, else to the one definition the crate has, and two
    /// different ones leave it unresolved.
    #[test]
    fn constants_let_go_are_read_again_and_fold_as_if_kept() {
        use crate::facts::retention::LET_GO_DEFS;
        let mut bindgen =
            String::from("pub const HOUR: u64 = 3600;\npub const DAY: u64 = 24 * HOUR;\n");
        for i in 0..LET_GO_DEFS {
            bindgen.push_str(&format!("pub const IOCTL_{i}: u32 = {i};\n"));
        }
        bindgen.push_str("pub const SLOT: u64 = 60;\n");
        let files = [
            ("src/sys/general.rs", FileKind::Rust, bindgen.as_str()),
            (
                "src/config.rs",
                FileKind::Rust,
                "pub const SLOT: u64 = 90;\npub const EVENT_TTL_SECS: u64 = 2 * DAY + HOUR;\n",
            ),
            (
                "src/webhooks/stripe.rs",
                FileKind::Rust,
                "async fn claim(con: &mut C, id: &str) {\n    let key = format!(\"idem:stripe:{}\", id);\n    con.set_ex(&key, 1, EVENT_TTL_SECS).await;\n    con.set_ex(format!(\"idem:stripe:slot:{id}\"), 1, SLOT).await;\n}\n",
            ),
        ];
        let (sources, kept) = super::super::parsed(&files);
        let (_, mut let_go) = super::super::parsed(&files);
        for f in &mut let_go {
            if let Some(r) = &mut f.code {
                r.retention.let_go_defs(false);
            }
        }
        let rust = |f: &FileFacts| {
            f.code
                .as_ref()
                .map(|r| (r.retention.defs.len(), r.retention.let_go.is_some()))
        };
        assert_eq!(rust(&let_go[0]), Some((0, true)));
        assert_eq!(rust(&let_go[1]), Some((2, false)));
        let config = Config::default();
        let a = RetentionModel::build(&kept, &sources, &config);
        let b = RetentionModel::build(&let_go, &sources, &config);
        let with_file = |m: &RetentionModel| {
            m.items
                .iter()
                .map(|r| (r.file, r.site.map(|(f, _)| f), r.context.clone()))
                .zip(found(m, &files))
                .collect::<Vec<_>>()
        };
        assert_eq!(with_file(&a), with_file(&b));
        // DAY and HOUR come from the let-go file; SLOT has two values.
        assert_eq!(
            found(&b, &files),
            vec![(
                "2 * DAY + HOUR".to_string(),
                2 * DAY + HOUR,
                "stripe-webhooks".to_string()
            )]
        );
        // Read again once, the same way.
        let l = let_go[0]
            .code
            .as_ref()
            .unwrap()
            .retention
            .let_go
            .as_ref()
            .unwrap();
        let again = l.defs(&bindgen, "src/sys/general.rs").unwrap();
        assert_eq!(again.len(), LET_GO_DEFS + 3);
        assert!(l.may_define(crate::facts::retention::name_digest("DAY")));
    }

    /// A let-go file that changed before its constants were read again
    /// gives none (and a warning), never constants of another text.
    #[test]
    fn constants_of_a_changed_file_are_not_read_again() {
        use crate::facts::retention::LET_GO_DEFS;
        let text: String = (0..LET_GO_DEFS)
            .map(|i| format!("pub const C{i}: u64 = {i};\n"))
            .collect();
        let mut f = crate::frontend::parse(0, FileKind::Rust, &text);
        let r = &mut f.code.as_mut().unwrap().retention;
        r.let_go_defs(true);
        let l = r.let_go.as_ref().unwrap();
        assert!(l.defs(&text.replace("C7:", "D7:"), "src/c.rs").is_none());
    }

    #[test]
    fn a_migration_file_name_does_not_attribute_a_request_key_table() {
        let purge = "SELECT cron.schedule('purge', '0 3 * * *', $$DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'$$);\n\
                     SELECT cron.schedule('purge-events', '0 4 * * *', $$DELETE FROM webhook_events WHERE received_at < now() - interval '7 days'$$);\n";
        let files = [(
            "db/migrations/20240301000000_add_stripe_customer_id_and_purge.sql",
            FileKind::Sql,
            purge,
        )];
        let m = run(&files, &Config::default());
        assert_eq!(
            found(&m, &files),
            vec![
                ("24 hours".to_string(), DAY, "-".to_string()),
                ("7 days".to_string(), 7 * DAY, "stripe-webhooks".to_string()),
            ]
        );
    }

    #[test]
    fn config_keys_under_a_store_are_retentions_and_sessions_are_not() {
        let yaml = "stripe:\n  webhooks:\n    dedup_ttl: 24h\n    signature_tolerance: 300\nsession:\n  ttl: 24h\nidempotency:\n  ttl: 86400\n  lock_ttl: 30s\n";
        let files = [("config/app.yaml", FileKind::Yaml, yaml)];
        let m = run(&files, &Config::default());
        assert_eq!(
            found(&m, &files),
            vec![
                ("24h".to_string(), DAY, "stripe-webhooks".to_string()),
                ("86400".to_string(), DAY, "-".to_string()),
            ]
        );
        assert!(!m.items[0].unit_assumed);
        assert!(m.items[1].unit_assumed);
    }

    #[test]
    fn env_reference_uses_its_default_or_gives_nothing() {
        let env = "STRIPE_DEDUP_TTL_HOURS=${STRIPE_DEDUP_TTL_HOURS:-48}\nADYEN_DEDUP_TTL_HOURS=${ADYEN_DEDUP_TTL_HOURS}\n";
        let files = [(".env", FileKind::Env, env)];
        let m = run(&files, &Config::default());
        assert_eq!(
            found(&m, &files),
            vec![("48".to_string(), 2 * DAY, "stripe-webhooks".to_string())]
        );
    }

    #[test]
    fn declared_store_counterparty_wins_and_store_false_drops_it() {
        let files = [(
            "src/cache.rs",
            FileKind::Rust,
            "async fn f(con: &mut C, id: &str) {\n    con.set_ex(format!(\"idem:acme:{id}\"), 1, 3600).await;\n    con.set_ex(format!(\"dedup:ignored:{id}\"), 1, 3600).await;\n}\n",
        )];
        let cfg = Config::parse(
            "[[store]]\nkey_prefix = \"idem:acme:\"\ncounterparty = \"paypal-webhooks\"\n[[store]]\nkey_prefix = \"dedup:ignored:\"\nstore = false\n",
            "idemlint.toml",
        )
        .unwrap();
        let m = run(&files, &cfg);
        assert_eq!(
            found(&m, &files),
            vec![("3600".to_string(), HOUR, "paypal-webhooks".to_string())]
        );
        assert_eq!(
            m.items[0].attribution,
            Attribution::Declared("paypal-webhooks".into())
        );
    }

    #[test]
    fn kubernetes_env_entries_are_read_by_their_name() {
        let yaml = "env:\n  - name: IDEMPOTENCY_TTL_SECONDS\n    value: \"86400\"\n  - name: SESSION_TTL_SECONDS\n    value: \"86400\"\n";
        let files = [("deploy/api.yaml", FileKind::Yaml, yaml)];
        let m = run(&files, &Config::default());
        assert_eq!(
            found(&m, &files),
            vec![("86400".to_string(), DAY, "-".to_string())]
        );
        assert!(!m.items[0].unit_assumed);
    }
}

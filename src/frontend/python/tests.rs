use crate::facts::FileFacts;
use crate::source::FileKind;

fn facts(src: &str) -> FileFacts {
    crate::frontend::parse(0, FileKind::Python, src)
}

use crate::frontend::key_writes::Seen;

/// Each write, and the pending retentions' `via`.
fn writes(src: &str) -> (Vec<Seen>, Vec<String>) {
    crate::frontend::key_writes::seen(&facts(src))
}

#[test]
fn django_cache_and_redis_writes_are_read_with_their_expiry() {
    let (w, p) = writes(
        "from datetime import timedelta\n\
         DAY = 60 * 60 * 24\n\
         WINDOW = timedelta(hours=12)\n\
         r = redis.Redis.from_url(URL)\n\
         def hook(request):\n\
         \x20   event = stripe.Webhook.construct_event(request.body, sig, secret)\n\
         \x20   if not cache.add(f\"stripe:event:{event.id}\", 1, timeout=DAY):\n\
         \x20       return\n\
         \x20   key = f\"seen:{event['id']}\"\n\
         \x20   r.set(key, 1, ex=WINDOW, nx=True)\n\
         \x20   r.setex(\"dedup:\" + event.id, 3600, 1)\n\
         \x20   caches[\"default\"].set(f\"idem:{k}\", 1, 60)\n\
         \x20   resp = requests.get(url)\n\
         \x20   resp.set(\"idem:x\", 1, 5)\n",
    );
    assert_eq!(
        w,
        [
            ("stripe:event:".to_string(), Some(86_400), true),
            ("seen:".to_string(), Some(43_200), true),
            ("dedup:".to_string(), Some(3600), false),
            ("idem:".to_string(), Some(60), false),
        ]
    );
    assert_eq!(p.len(), 4, "{p:?}");
    assert!(p[0].contains("built from `event.id`"), "{p:?}");
}

/// Each table a file creates, with its keys as (kind, columns).
fn tables(src: &str) -> Vec<(String, Vec<String>)> {
    use crate::facts::store::SchemaChange;
    let f = facts(src);
    let Some(sql) = f.sql else { return Vec::new() };
    sql.events
        .iter()
        .map(|e| match &e.kind {
            SchemaChange::CreateTable(t) => (
                t.name.key.clone(),
                t.keys
                    .iter()
                    .map(|k| format!("{:?} {}", k.kind, k.parts_text()))
                    .collect(),
            ),
            SchemaChange::CreateIndex(i) => (
                format!("index on {}", i.table.key),
                vec![format!("{:?} {}", i.key.kind, i.key.parts_text())],
            ),
            SchemaChange::AlterTable { table, ops } => (
                format!("alter {}", table.key),
                vec![format!("{} ops", ops.len())],
            ),
            other => (format!("{other:?}"), Vec::new()),
        })
        .collect()
}

#[test]
fn alembic_sqlalchemy_and_django_schemas_are_tables() {
    let t = tables(
        "def upgrade():\n\
         \x20   op.create_table('processed_events', sa.Column('id', sa.Integer(), primary_key=True),\n\
         \x20       sa.Column('event_id', sa.String(255), nullable=False))\n\
         \x20   op.create_index('ix_pe', 'processed_events', ['event_id'], unique=True)\n\
         \x20   op.execute('CREATE UNIQUE INDEX ux_a ON payouts (ref)')\n\
         def downgrade():\n\
         \x20   op.drop_table('processed_events')\n\
         class Delivery(Base):\n\
         \x20   __tablename__ = 'deliveries'\n\
         \x20   id: Mapped[int] = mapped_column(primary_key=True)\n\
         \x20   delivery_id = Column(String, unique=True)\n\
         class ProcessedEvent(models.Model):\n\
         \x20   event_id = models.CharField(max_length=255)\n\
         \x20   class Meta:\n\
         \x20       constraints = [models.UniqueConstraint(fields=['event_id'], name='uq_e')]\n",
    );
    assert_eq!(
        t,
        [
            (
                "processed_events".to_string(),
                vec!["PrimaryKey id".to_string()]
            ),
            (
                "index on processed_events".to_string(),
                vec!["Unique event_id".to_string()]
            ),
            (
                "index on payouts".to_string(),
                vec!["Unique ref".to_string()]
            ),
            (
                "deliveries".to_string(),
                vec![
                    "PrimaryKey id".to_string(),
                    "Unique delivery_id".to_string()
                ]
            ),
            (
                "processedevent".to_string(),
                vec!["PrimaryKey id".to_string(), "Unique event_id".to_string()]
            ),
        ]
    );
}

#[test]
fn django_migrations_name_models_as_their_model_name() {
    let t = tables(
        "class Migration(migrations.Migration):\n\
         \x20   operations = [\n\
         \x20       migrations.CreateModel(name='WebhookDelivery', fields=[\n\
         \x20           ('id', models.BigAutoField(primary_key=True)),\n\
         \x20           ('delivery_id', models.CharField(max_length=64)),\n\
         \x20       ], options={'unique_together': {('delivery_id',)}}),\n\
         \x20       migrations.AddConstraint(model_name='webhookdelivery',\n\
         \x20           constraint=models.UniqueConstraint(fields=['delivery_id'], name='uq_d')),\n\
         \x20   ]\n",
    );
    assert_eq!(
        t,
        [
            (
                "webhookdelivery".to_string(),
                vec![
                    "PrimaryKey id".to_string(),
                    "Unique delivery_id".to_string()
                ]
            ),
            (
                "alter webhookdelivery".to_string(),
                vec!["1 ops".to_string()]
            ),
        ]
    );
}

/// The generators of the fresh keys a file sends inside a retry.
fn fresh(src: &str) -> Vec<String> {
    use crate::facts::retry::{FreshKind, Maker};
    let f = facts(src);
    f.code
        .map(|c| {
            c.retry
                .fresh
                .iter()
                .filter(|s| matches!(s.kind, FreshKind::Retried { .. }))
                .map(|s| match &s.maker {
                    Maker::Generator(g) => g.clone(),
                    Maker::Helper { name, .. } => name.clone(),
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn keys_made_fresh_inside_a_retry_are_found_and_stable_ones_are_not() {
    assert_eq!(
        fresh(
            "@tenacity.retry(stop=stop_after_attempt(3))\n\
             def refund(o):\n\
             \x20   stripe.Refund.create(payment_intent=o.pi, idempotency_key=str(uuid.uuid4()))\n\
             @backoff.on_exception(backoff.expo, Exception)\n\
             def post(o):\n\
             \x20   k = secrets.token_hex(16)\n\
             \x20   httpx.post(u, headers={'Idempotency-Key': k})\n\
             def once(o):\n\
             \x20   stripe.Refund.create(payment_intent=o.pi, idempotency_key=str(uuid.uuid4()))\n\
             @retry\n\
             def stable(o):\n\
             \x20   stripe.Refund.create(payment_intent=o.pi, idempotency_key=f'refund-{o.id}')\n",
        ),
        ["uuid.uuid4()", "secrets.token_hex()"]
    );
}

/// Keys made fresh outside a retry: (generator, the input beside it).
fn per_call(src: &str) -> Vec<(String, Option<String>)> {
    use crate::facts::retry::{FreshKind, Maker};
    let f = facts(src);
    let c = f.code.unwrap_or_default();
    c.retry
        .fresh
        .iter()
        .filter_map(|s| {
            let Maker::Generator(g) = &s.maker else {
                return None;
            };
            match &s.kind {
                FreshKind::PerCall => Some((g.clone(), None)),
                FreshKind::Mixed { from } => Some((g.clone(), Some(from.clone()))),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn keys_made_fresh_per_call_are_read_beside_their_input_or_alone() {
    let src = "def transfer(p):\n\
         \x20   stripe.Transfer.create(amount=p.amount, idempotency_key=f'payout-{uuid.uuid4()}')\n\
         def deliver(client, event):\n\
         \x20   ts = datetime.now(timezone.utc)\n\
         \x20   client.post(u, headers={'webhook-id': f'{event.id}-{int(ts.timestamp())}'})\n\
         def monthly(customer):\n\
         \x20   period = datetime.now().strftime('%Y-%m')\n\
         \x20   stripe.Invoice.create(customer=customer, idempotency_key=f'inv-{customer}-{period}')\n\
         def stored(tx):\n\
         \x20   tx.events.create(type='refund', idempotency_key=str(uuid.uuid4()))\n\
         def default(session, payout):\n\
         \x20   key = payout.get('idempotency_key') or str(uuid.uuid4())\n\
         \x20   session.post(u, headers={'Idempotency-Key': key})\n\
         def each(orders):\n\
         \x20   for o in orders:\n\
         \x20       stripe.Invoice.send_invoice(o.invoice_id, idempotency_key=str(uuid4()))\n";
    assert_eq!(
        per_call(src),
        [
            ("uuid.uuid4()".to_string(), None),
            ("datetime.now()".to_string(), Some("event.id".to_string())),
        ]
    );
}

#[test]
fn sdk_retry_loops_send_fresh_keys_in_dicts_assignments_and_minters() {
    let src = "class Client:\n\
         \x20   def _idempotency_key(self):\n\
         \x20       return f'retry-{uuid.uuid4()}'\n\
         \x20   def _label(self):\n\
         \x20       return 'payouts'\n\
         \x20   def request(self, options, headers):\n\
         \x20       for retries_taken in range(3):\n\
         \x20           options.idempotency_key = self._idempotency_key()\n\
         \x20           headers['Idempotency-Key'] = self._label()\n\
         \x20           try:\n\
         \x20               return self.send(url, {**headers, 'Idempotency-Key': os.urandom(16).hex()})\n\
         \x20           except OSError:\n\
         \x20               pass\n";
    assert_eq!(fresh(src), ["_idempotency_key", "_label", "os.urandom()"]);
    // The minters: only the function that returns a fresh value.
    let f = facts(src);
    let m: Vec<String> = f
        .code
        .unwrap()
        .retry
        .minters
        .iter()
        .map(|m| m.name.clone())
        .collect();
    assert_eq!(m, ["_idempotency_key"]);
}

#[test]
fn broken_code_and_templates_are_counted() {
    let p = facts("def f(:\n    idempotency_key = 1\n").problems;
    assert!(p.len() == 1 && !p[0].reported, "{p:?}");
    let p = facts("{% if x %}\nimport {{ name }}\n{% endif %}\n").problems;
    assert!(p.len() == 1 && !p[0].reported, "{p:?}");
    let p = facts("print 'hello'\n").problems;
    assert!(p.len() == 1 && !p[0].reported, "{p:?}");
    assert!(facts("x = 1\n").problems.is_empty());
    let f = facts(
        "def test_refund():\n    pass\nclass TestPayouts:\n    pass\ndef refund():\n    pass\n",
    );
    assert_eq!(f.test_regions.len(), 2);
    // Deep nesting is refused before the parser, never a stack overflow.
    let deep = format!("x = {}1{}\n", "(".repeat(100_000), ")".repeat(100_000));
    assert!(!facts(&deep).problems.is_empty());
    for chain in [
        format!("x = {}y\n", "not ".repeat(200_000)),
        format!("x = 1{}\n", " + 1".repeat(200_000)),
        format!("x = a{}\n", ".b".repeat(200_000)),
        format!("x = {}1\n", "lambda: ".repeat(100_000)),
        format!("x = (1{})\n", "\n + 1".repeat(200_000)),
        format!("x = f(1){}\n", " + f(1, 2)".repeat(200_000)),
    ] {
        let p = facts(&chain).problems;
        assert!(p.len() == 1 && !p[0].reported, "{p:?}");
    }
    // A long list of shallow elements (a migration's `operations`) nests
    // no deeper than one of them.
    let flat = format!(
        "x = [{}]\n",
        "models.CharField(max_length=1), ".repeat(5_000)
    );
    assert!(facts(&flat).problems.is_empty());
}

#[test]
fn a_lookup_by_equalities_then_an_insert_of_its_model_is_a_find_or_create() {
    let f = facts(
        "class Repo:\n\
         \x20   async def by_ref(self, org, ref):\n\
         \x20       return await self.session.scalar(select(Item).where(Item.org_id == org, Item.ref == ref))\n\
         \x20   async def stage(self, org, ref):\n\
         \x20       found = await self.by_ref(org, ref)\n\
         \x20       if found:\n\
         \x20           return found\n\
         \x20       return await self.create(Item(org_id=org, ref=ref))\n\
         \x20   async def other(self, org):\n\
         \x20       self.session.add(Item(org_id=org))\n\
         def inline(session, k):\n\
         \x20   row = session.scalar(select(Item).where(Item.kind == k, Item.state.in_([1])))\n\
         \x20   session.add(Item(kind=k))\n\
         def before(session, k):\n\
         \x20   session.add(Other(kind=k))\n\
         \x20   session.scalar(select(Other).where(Other.kind == k))\n",
    );
    let got: Vec<(String, Vec<String>)> = f
        .find_or_create
        .iter()
        .map(|c| (c.table.clone(), c.columns.clone()))
        .collect();
    assert_eq!(
        got,
        [(
            "item".to_string(),
            vec!["org_id".to_string(), "ref".to_string()]
        )]
    );
}

#[test]
fn a_django_exists_check_then_a_create_of_its_model_is_a_find_or_create() {
    let f = facts(
        "def redeem(shop, code):\n\
         \x20   if Redemption.objects.filter(shop=shop, voucher_code=code).exists():\n\
         \x20       return\n\
         \x20   Redemption.objects.create(shop=shop, voucher_code=code)\n\
         def loose(shop, code):\n\
         \x20   if Redemption.objects.filter(voucher_code__iexact=code).exists():\n\
         \x20       return\n\
         \x20   Redemption.objects.create(shop=shop, voucher_code=code)\n",
    );
    let got: Vec<(String, Vec<String>)> = f
        .find_or_create
        .iter()
        .map(|c| (c.table.clone(), c.columns.clone()))
        .collect();
    assert_eq!(
        got,
        [(
            "redemption".to_string(),
            vec!["shop".to_string(), "voucher_code".to_string()]
        )]
    );
}

#[test]
fn a_data_migration_holds_no_find_or_create() {
    let f = facts(
        "def forwards(apps, schema_editor):\n\
         \x20   Plugin = apps.get_model(\"plugins\", \"Plugin\")\n\
         \x20   Plugin.objects.get_or_create(identifier=\"x\")\n\
         class Migration(migrations.Migration):\n\
         \x20   operations = [migrations.RunPython(forwards)]\n",
    );
    assert!(f.find_or_create.is_empty(), "{:?}", f.find_or_create);
}

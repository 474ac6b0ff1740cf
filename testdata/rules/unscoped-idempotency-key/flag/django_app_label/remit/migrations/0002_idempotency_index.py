from django.db import migrations


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("remit", "0001_initial")]

    operations = [
        migrations.RunSQL(
            sql="""
              CREATE UNIQUE INDEX CONCURRENTLY "remit_idempotency_idx"  -- expect: unscoped-idempotency-key
              ON "remit_remittance" ("idempotency_key");
            """,
            reverse_sql='DROP INDEX CONCURRENTLY IF EXISTS "remit_idempotency_idx";',
        ),
    ]

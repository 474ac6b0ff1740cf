from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Remittance",
            fields=[
                ("id", models.AutoField(primary_key=True, serialize=False)),
                ("account_id", models.CharField(max_length=64)),
                ("idempotency_key", models.CharField(max_length=255)),
                ("amount", models.BigIntegerField()),
            ],
        ),
    ]

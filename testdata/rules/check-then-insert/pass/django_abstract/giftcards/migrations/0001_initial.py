from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="GiftCard",
            fields=[
                ("id", models.AutoField(auto_created=True, primary_key=True, serialize=False)),
                ("code", models.CharField(max_length=32, unique=True, db_index=True)),
                ("balance", models.IntegerField(default=0)),
            ],
        ),
    ]

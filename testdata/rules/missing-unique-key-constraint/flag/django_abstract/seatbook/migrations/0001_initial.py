from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Booking",  # expect: missing-unique-key-constraint
            fields=[
                ("id", models.AutoField(auto_created=True, primary_key=True, serialize=False)),
                ("reference", models.CharField(max_length=40, db_index=True)),
                ("seats", models.IntegerField()),
            ],
        ),
    ]

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Transfer",
            fields=[
                ("received_at", models.DateTimeField(auto_now_add=True)),
                ("row_id", models.BigAutoField(primary_key=True, serialize=False)),
                ("remote_id", models.CharField(max_length=64, unique=True)),
                ("amount", models.IntegerField(default=0)),
            ],
            options={"abstract": False},
        ),
    ]

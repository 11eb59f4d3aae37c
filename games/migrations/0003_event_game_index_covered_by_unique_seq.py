"""Drop the event table's index on game alone: the unique (game, seq) index
starts with game and serves every lookup by game. Plain SQL rather than
AlterField, which on SQLite would rebuild the table and lose its
append-only triggers (0002); the index has the same name on both backends."""

import django.db.models.deletion
from django.db import migrations, models

INDEX = "games_event_game_id_afa0391c"


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_event_append_only"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {INDEX}",
                    reverse_sql=f"CREATE INDEX {INDEX} ON games_event (game_id)",
                )
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="event",
                    name="game",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="events",
                        to="games.game",
                    ),
                ),
            ],
        ),
    ]

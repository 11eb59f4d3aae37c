"""Make the event table append-only in the database itself.

Code paths are not enough: an admin action, a stray ORM ``update()`` or a
hand-written SQL session must not be able to rewrite history either.
PostgreSQL gets a trigger function raising on UPDATE/DELETE (and TRUNCATE),
except that a session which sets ``facets.allow_event_purge = on`` may delete
(never update); SQLite, the embedded default, refuses both unconditionally.
"""

from django.db import migrations

PG_FORWARD = """
CREATE OR REPLACE FUNCTION games_event_refuse_change() RETURNS trigger AS $$
BEGIN
    -- The one escape hatch: a session that explicitly declares a purge may
    -- delete whole games' logs (test-database teardown, legal erasure).
    -- Nothing may ever UPDATE an event.
    IF TG_OP <> 'UPDATE' AND current_setting('facets.allow_event_purge', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'games_event is append-only: % refused', TG_OP
        USING ERRCODE = 'raise_exception';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER games_event_no_update BEFORE UPDATE ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_refuse_change();
CREATE TRIGGER games_event_no_delete BEFORE DELETE ON games_event
    FOR EACH ROW EXECUTE FUNCTION games_event_refuse_change();
CREATE TRIGGER games_event_no_truncate BEFORE TRUNCATE ON games_event
    FOR EACH STATEMENT EXECUTE FUNCTION games_event_refuse_change();
"""

PG_BACKWARD = """
DROP TRIGGER IF EXISTS games_event_no_update ON games_event;
DROP TRIGGER IF EXISTS games_event_no_delete ON games_event;
DROP TRIGGER IF EXISTS games_event_no_truncate ON games_event;
DROP FUNCTION IF EXISTS games_event_refuse_change();
"""

SQLITE_FORWARD = [
    """CREATE TRIGGER games_event_no_update BEFORE UPDATE ON games_event
       BEGIN SELECT RAISE(ABORT, 'games_event is append-only: UPDATE refused'); END;""",
    """CREATE TRIGGER games_event_no_delete BEFORE DELETE ON games_event
       BEGIN SELECT RAISE(ABORT, 'games_event is append-only: DELETE refused'); END;""",
]

SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS games_event_no_update;",
    "DROP TRIGGER IF EXISTS games_event_no_delete;",
]


def forward(apps, schema_editor):
    _run(schema_editor, PG_FORWARD, SQLITE_FORWARD)


def backward(apps, schema_editor):
    _run(schema_editor, PG_BACKWARD, SQLITE_BACKWARD)


def _run(schema_editor, postgres_sql, sqlite_statements):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(postgres_sql, params=None)
    elif vendor == "sqlite":
        for statement in sqlite_statements:
            schema_editor.execute(statement)
    else:
        raise RuntimeError(f"no append-only triggers written for {vendor}")


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]

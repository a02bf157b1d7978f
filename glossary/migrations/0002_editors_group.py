"""The "Editors" group: everything needed to write the glossary, nothing to manage people.

Editors add, change, delete and view terms, articles, categories and series, and may view
user accounts only because the article author autocomplete lists them (the admin still
keeps the account pages themselves from editors, see `glossary/admin/users.py`). Running it
again resets the group to exactly these permissions; reversing removes the group.
"""

from django.conf import settings
from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP_NAME = "Editors"
CONTENT_MODELS = ("term", "article", "category", "series")
ACTIONS = ("add", "change", "delete", "view")


def editor_permissions() -> set[tuple[str, str]]:
    """(app_label, codename) pairs the group holds."""
    user_app, user_model = settings.AUTH_USER_MODEL.lower().split(".")
    perms = {("glossary", f"{action}_{model}") for model in CONTENT_MODELS for action in ACTIONS}
    perms.add((user_app, f"view_{user_model}"))
    return perms


def _ensure_permissions(apps, using: str) -> None:
    # On a fresh database permissions are created by post_migrate, i.e. after this migration
    # has run, so create them now. Historical app configs have no models module, which
    # makes create_permissions skip them; pretend they have one for the duration.
    labels = {app_label for app_label, _ in editor_permissions()}
    for app_config in apps.get_app_configs():
        if app_config.label not in labels:
            continue
        models_module = getattr(app_config, "models_module", None)
        app_config.models_module = models_module or True
        try:
            create_permissions(app_config, apps=apps, verbosity=0, using=using)
        finally:
            app_config.models_module = models_module


def create_editors_group(apps, schema_editor) -> None:
    using = schema_editor.connection.alias
    _ensure_permissions(apps, using)
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    wanted = editor_permissions()
    permissions = [
        perm
        for perm in Permission.objects.using(using)
        .filter(codename__in={codename for _, codename in wanted})
        .select_related("content_type")
        if (perm.content_type.app_label, perm.codename) in wanted
    ]
    missing = wanted - {(p.content_type.app_label, p.codename) for p in permissions}
    if missing:
        raise RuntimeError(f"Missing permissions for the Editors group: {sorted(missing)}")
    group, _ = Group.objects.using(using).get_or_create(name=GROUP_NAME)
    group.permissions.set(permissions)


def remove_editors_group(apps, schema_editor) -> None:
    using = schema_editor.connection.alias
    apps.get_model("auth", "Group").objects.using(using).filter(name=GROUP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("glossary", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(create_editors_group, remove_editors_group),
    ]

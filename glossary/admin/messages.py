"""The admin's messages in Polish, with the gender and plural forms of each model."""

from django.contrib import messages
from django.utils.translation import gettext_lazy, ngettext

from ..models import Article, Category, Series, Term

MESSAGES = {
    Term: {
        "added": gettext_lazy("The term “{obj}” was added."),
        "changed": gettext_lazy("The term “{obj}” was changed."),
        "deleted": gettext_lazy("The term “{obj}” was deleted."),
        "continue": gettext_lazy("You can edit it again below."),
        "another": gettext_lazy("You can add another term below."),
    },
    Article: {
        "added": gettext_lazy("The article “{obj}” was added."),
        "changed": gettext_lazy("The article “{obj}” was changed."),
        "deleted": gettext_lazy("The article “{obj}” was deleted."),
        "continue": gettext_lazy("You can edit the article again below."),
        "another": gettext_lazy("You can add another article below."),
    },
    Category: {
        "added": gettext_lazy("The category “{obj}” was added."),
        "changed": gettext_lazy("The category “{obj}” was changed."),
        "deleted": gettext_lazy("The category “{obj}” was deleted."),
        "continue": gettext_lazy("You can edit the category again below."),
        "another": gettext_lazy("You can add another category below."),
    },
    Series: {
        "added": gettext_lazy("The series “{obj}” was added."),
        "changed": gettext_lazy("The series “{obj}” was changed."),
        "deleted": gettext_lazy("The series “{obj}” was deleted."),
        "continue": gettext_lazy("You can edit the series again below."),
        "another": gettext_lazy("You can add another series below."),
    },
}


def count_message(model, what: str, count: int) -> str:
    """ "5 pojęć opublikowano." — the plural form Polish needs for `count`."""
    forms = {
        (Term, "deleted"): ("%(count)d term was deleted.", "%(count)d terms were deleted."),
        (Article, "deleted"): (
            "%(count)d article was deleted.",
            "%(count)d articles were deleted.",
        ),
        (Category, "deleted"): (
            "%(count)d category was deleted.",
            "%(count)d categories were deleted.",
        ),
        (Series, "deleted"): (
            "%(count)d series was deleted.",
            "%(count)d series were deleted.",
        ),
        (Term, "published"): (
            "%(count)d term was published.",
            "%(count)d terms were published.",
        ),
        (Article, "published"): (
            "%(count)d article was published.",
            "%(count)d articles were published.",
        ),
        (Term, "unpublished"): (
            "%(count)d term was returned to draft.",
            "%(count)d terms were returned to draft.",
        ),
        (Article, "unpublished"): (
            "%(count)d article was returned to draft.",
            "%(count)d articles were returned to draft.",
        ),
        (Term, "already_published"): (
            "%(count)d term was already published and is unchanged.",
            "%(count)d terms were already published and are unchanged.",
        ),
        (Article, "already_published"): (
            "%(count)d article was already published and is unchanged.",
            "%(count)d articles were already published and are unchanged.",
        ),
        (Term, "already_draft"): (
            "%(count)d term was already a draft and is unchanged.",
            "%(count)d terms were already drafts and are unchanged.",
        ),
        (Article, "already_draft"): (
            "%(count)d article was already a draft and is unchanged.",
            "%(count)d articles were already drafts and are unchanged.",
        ),
    }
    singular, plural = forms[model, what]
    return ngettext(singular, plural, count) % {"count": count}


class PolishMessagesMixin:
    """Replaces Django's generic success messages by `MESSAGES`: the add/change/delete
    responses leave a note on the request, and `message_user` swaps the text it is given."""

    def _note(self, request, verb: str, obj) -> None:
        request._glossary_message = (verb, str(obj))

    def response_add(self, request, obj, post_url_continue=None):
        self._note(request, "added", obj)
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request, obj):
        self._note(request, "changed", obj)
        return super().response_change(request, obj)

    def response_delete(self, request, obj_display, obj_id):
        self._note(request, "deleted", obj_display)
        return super().response_delete(request, obj_display, obj_id)

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        note = getattr(request, "_glossary_message", None)
        bulk = getattr(request, "_glossary_bulk_deleted", None)
        texts = MESSAGES[self.model]
        if note is not None and level == messages.SUCCESS:
            verb, name = note
            request._glossary_message = None
            message = texts[verb].format(obj=name)
            if verb != "deleted" and "_continue" in request.POST:
                message = f"{message} {texts['continue']}"
            elif verb != "deleted" and "_addanother" in request.POST:
                message = f"{message} {texts['another']}"
        elif bulk is not None and level == messages.SUCCESS:
            request._glossary_bulk_deleted = None
            message = count_message(self.model, "deleted", bulk)
        return super().message_user(request, message, level, *args, **kwargs)

    def delete_queryset(self, request, queryset):
        request._glossary_bulk_deleted = queryset.count()
        super().delete_queryset(request, queryset)

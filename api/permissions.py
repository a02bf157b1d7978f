"""Django's model permissions decide what a user may do (the Editors group of glossary
migration 0002 holds add/change/delete/view on terms and articles).

Reads are open to everyone and show published content; seeing drafts or `context=edit`
takes the model's view/change permission (`can_see_drafts`, `can_edit`). Writes go by the
view's action rather than the HTTP method, because WordPress edits with POST to an
object's route as well as with PUT/PATCH.
"""

from rest_framework.permissions import SAFE_METHODS, BasePermission

_ACTIONS = {
    "create": "add",
    "update": "change",
    "partial_update": "change",
    "edit": "change",
    "destroy": "delete",
}


def _perm(model, action: str) -> str:
    return f"{model._meta.app_label}.{action}_{model._meta.model_name}"


def can_see_drafts(user, model) -> bool:
    return bool(user and user.is_authenticated) and (
        user.has_perm(_perm(model, "view")) or user.has_perm(_perm(model, "change"))
    )


def can_edit(user, model) -> bool:
    return bool(user and user.is_authenticated) and user.has_perm(_perm(model, "change"))


class ContentPermissions(BasePermission):
    def has_permission(self, request, view):
        if request.method in SAFE_METHODS or request.method == "OPTIONS":
            return True
        if not hasattr(view, request.method.lower()):  # not served here: let it be a 405
            return True
        if not (request.user and request.user.is_authenticated):
            return False
        model = getattr(view, "model", None)
        action = _ACTIONS.get(getattr(view, "action", None) or "")
        return (
            model is not None and action is not None and request.user.has_perm(_perm(model, action))
        )

"""OPTIONS on a route answers as WordPress does: the route's methods and, per method, its
arguments, plus the JSON Schema of the resource it serves (from api/schema.py)."""

from rest_framework.metadata import BaseMetadata

from . import schema


class RouteMetadata(BaseMetadata):
    def determine_metadata(self, request, view):
        found = schema.route_for(request.path)
        if found is None:
            return {"methods": list(view.allowed_methods)}
        _key, route = found
        data = {
            "namespace": route["namespace"],
            "methods": route["methods"],
            "endpoints": route["endpoints"],
        }
        serializer = getattr(view, "serializer_class", None)
        if serializer is not None:
            item_schema = schema.resource_schema(serializer)
            if item_schema is not None:
                data["schema"] = item_schema
        if "_links" in route:
            data["_links"] = route["_links"]
        return data

"""A campaign's archive over HTTP: an umpire exports it, and anyone may load one into this
installation and become its umpire (campaigns/archive.py)."""

from __future__ import annotations

import tempfile
import uuid
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.archive import CONTENT_TYPE, archive_export
from campaigns.archive_import import archive_import
from campaigns.selectors import require_umpire
from eventlog.api.serializers import ErrorSerializer
from eventlog.errors import CommandError, error_body

_FORM_TYPES = ("multipart/form-data", "application/x-www-form-urlencoded")
_CHUNK = 64 * 1024


class ArchiveRenderer(BaseRenderer):
    """Lets a client ask for the archive by its media type; errors still come as JSON."""

    media_type = CONTENT_TYPE
    format = "jsonl"
    charset = None

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context=None):
        return JSONRenderer().render(data)


class ImportedUserSerializer(serializers.Serializer):
    archived_id = serializers.IntegerField(help_text="The user's id where the archive came from.")
    archived_username = serializers.CharField(allow_null=True)
    user_id = serializers.IntegerField(help_text="The account that stands for them here.")
    username = serializers.CharField()
    placeholder = serializers.BooleanField(
        help_text="No account here was theirs: the umpire hands their place over "
        "(POST /campaigns/{id}/members/{user_id}/hand-over/)."
    )


class ImportedSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    events = serializers.IntegerField()
    seed_included = serializers.BooleanField()
    users = ImportedUserSerializer(many=True)


def _flag(raw: str | None, name: str) -> bool:
    if raw in (None, "", "false", "0"):
        return False
    if raw in ("true", "1"):
        return True
    raise CommandError("invalid.boolean", f"{name} is true or false.", field=name)


class CampaignExportApi(APIView):
    """The campaign's archive, for its umpires: every event, job, command and user, in JSON
    Lines with a hash chain (see the umpire's guide). ``include_seed=true`` adds the secret
    dice seed, which another installation needs to go on rolling the server's dice verifiably:
    keep such a file secret."""

    renderer_classes = [JSONRenderer, ArchiveRenderer]

    @extend_schema(
        parameters=[OpenApiParameter("include_seed", bool, description="Add the dice seed.")],
        responses={
            (200, CONTENT_TYPE): OpenApiResponse(OpenApiTypes.BINARY, description="The archive."),
            403: OpenApiResponse(ErrorSerializer, description="campaign.umpire_only"),
            404: OpenApiResponse(ErrorSerializer, description="campaign.not_found"),
        },
    )
    def get(self, request: Request, campaign_id: uuid.UUID) -> StreamingHttpResponse:
        require_umpire(user=request.user, campaign_id=campaign_id)
        include_seed = _flag(request.query_params.get("include_seed"), "include_seed")
        archive = archive_export(
            campaign_id, include_seed=include_seed, exported_by=request.user.get_username()
        )
        response = StreamingHttpResponse(archive.chunks(), content_type=CONTENT_TYPE)
        response["Content-Disposition"] = f'attachment; filename="{archive.filename}"'
        # The archive may hold the seed: no cache keeps a copy.
        response["Cache-Control"] = "private, no-store"
        return response


class CampaignImportApi(APIView):
    """Load a campaign from its archive (the request body, ``Content-Type:
    application/x-ndjson``). The archive is checked whole first: a changed byte or a file cut
    short is refused (422 ``archive.tampered``, ``archive.truncated``) and nothing is loaded; a
    campaign this installation has already is refused (409 ``archive.campaign_exists``).

    You take the place of the umpire who exported it. Everyone else becomes a placeholder
    member that cannot log in, since nobody is made a member by someone else naming them: hand
    each place over to its player (``POST /campaigns/{id}/members/{user_id}/hand-over/``)."""

    @extend_schema(
        request={CONTENT_TYPE: OpenApiTypes.BINARY},
        responses={
            201: ImportedSerializer,
            409: OpenApiResponse(
                ErrorSerializer, description="archive.campaign_exists, archive.user_clash"
            ),
            413: OpenApiResponse(ErrorSerializer, description="archive.too_large"),
            415: OpenApiResponse(ErrorSerializer, description="archive.media_type"),
            422: OpenApiResponse(
                ErrorSerializer,
                description="archive.tampered, archive.truncated, archive.invalid, "
                "archive.incompatible, archive.not_an_archive, archive.empty, archive.not_umpire",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        content_type = (request.content_type or "").split(";")[0].strip()
        if content_type in _FORM_TYPES:
            return Response(
                error_body(
                    "archive.media_type",
                    f"Send the archive itself as the body, as {CONTENT_TYPE}.",
                    "archive",
                ),
                status=status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            )
        limit = settings.MUSTER_ARCHIVE_MAX_BYTES
        with tempfile.SpooledTemporaryFile(max_size=4 * 1024 * 1024) as body:
            received = 0
            # Read from the request itself, a chunk at a time: an archive is far larger than
            # what Django keeps in memory for a body.
            while chunk := request._request.read(_CHUNK):
                received += len(chunk)
                if received > limit:
                    return Response(
                        error_body(
                            "archive.too_large",
                            f"An archive may have at most {limit} bytes.",
                            "archive",
                        ),
                        status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
                    )
                body.write(chunk)
            body.seek(0)
            importer = request.user
            assert isinstance(importer, AbstractBaseUser)  # IsAuthenticated, the default
            imported = archive_import(body, importer=importer)
        response = Response(
            {
                "id": str(imported.campaign_id),
                "name": imported.name,
                "events": imported.events,
                "seed_included": imported.seed_included,
                "users": [
                    {
                        "archived_id": user.archived.id,
                        "archived_username": user.archived.username,
                        "user_id": user.user_id,
                        "username": user.username,
                        "placeholder": user.placeholder,
                    }
                    for user in imported.users
                ],
            },
            status=status.HTTP_201_CREATED,
        )
        response["Location"] = request.build_absolute_uri(
            f"/api/v1/campaigns/{imported.campaign_id}/"
        )
        return response

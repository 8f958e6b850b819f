"""API tokens over HTTP: log in for one, list yours, make, revoke and rotate them."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.models import AbstractBaseUser
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import ApiToken
from accounts.throttles import LOGIN_THROTTLES
from accounts.tokens import (
    MAX_NAME_LENGTH,
    IssuedToken,
    TokenState,
    token_issue,
    token_of,
    token_revoke,
    token_rotate,
    token_state,
)
from eventlog.api.pagination import OFFSET_PAGE_PARAMETERS, offset_page, offset_page_of
from eventlog.errors import CommandError

DEFAULT_NAME = "api"


class TokenOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The secret's first characters, to recognise it by.")
    # Shadows Field.read_only for the type checker only: DRF moves declared fields off the class.
    read_only = serializers.BooleanField()  # type: ignore[assignment]
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)
    state = serializers.ChoiceField(choices=[s.value for s in TokenState])
    current = serializers.BooleanField(help_text="The token this request was made with.")


class NewTokenOutputSerializer(TokenOutputSerializer):
    token = serializers.CharField(help_text="The secret: shown in this response only.")


class TokenOptionsSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=MAX_NAME_LENGTH, default=DEFAULT_NAME)
    # Shadows Field.read_only for the type checker only: DRF moves declared fields off the class.
    read_only = serializers.BooleanField(  # type: ignore[assignment]
        default=False, help_text="A read-only token may only read: other methods are a 403."
    )
    expires_in_days = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Days until it expires; the server's default (30) when left out.",
    )


class TokenObtainSerializer(TokenOptionsSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class TokenRotateSerializer(serializers.Serializer):
    expires_in_days = serializers.IntegerField(required=False, allow_null=True, default=None)


def signed_in(request: Request) -> AbstractBaseUser:
    """The request's user: these views let in authenticated users only (IsAuthenticated)."""
    user = request.user
    assert isinstance(user, AbstractBaseUser)
    return user


def token_json(token: ApiToken, request: Request, secret: str | None = None) -> dict[str, Any]:
    data = {
        "id": token.id,
        "name": token.name,
        "prefix": token.prefix,
        "read_only": token.read_only,
        "created_at": token.created_at,
        "last_used_at": token.last_used_at,
        "expires_at": token.expires_at,
        "revoked_at": token.revoked_at,
        "state": token_state(token).value,
        "current": isinstance(request.auth, ApiToken) and request.auth.pk == token.pk,
    }
    if secret is None:
        return TokenOutputSerializer(data).data
    return NewTokenOutputSerializer({**data, "token": secret}).data


def _issued(issued: IssuedToken, request: Request, answer: int) -> Response:
    return Response(token_json(issued.token, request, issued.secret), status=answer)


class TokenObtainApi(APIView):
    """A new token for a username and password. Throttled by address and by username."""

    # The credentials are in the body: a stale token in a header must not refuse the request.
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = list(LOGIN_THROTTLES)

    @extend_schema(request=TokenObtainSerializer, responses={200: NewTokenOutputSerializer})
    def post(self, request: Request) -> Response:
        body = TokenObtainSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        given = body.validated_data
        user = authenticate(
            request._request, username=given["username"], password=given["password"]
        )
        if user is None:
            # The same answer whether the username exists or not.
            raise CommandError(
                "auth.invalid_credentials",
                "Unable to log in with the username and password given.",
            )
        issued = token_issue(
            user=user,
            name=given["name"],
            read_only=given["read_only"],
            expires_in_days=given["expires_in_days"],
        )
        # 200, as the endpoint always answered: clients written for it check for it.
        return _issued(issued, request, status.HTTP_200_OK)


class TokenListApi(APIView):
    """Your tokens, newest first (never their secrets), and making a new one."""

    @extend_schema(
        parameters=OFFSET_PAGE_PARAMETERS,
        responses=offset_page_of(TokenOutputSerializer),
    )
    def get(self, request: Request) -> Response:
        tokens = ApiToken.objects.select_related("user").filter(user_id=signed_in(request).pk)
        page = offset_page(request, tokens)
        page["results"] = [token_json(token, request) for token in page["results"]]
        return Response(page)

    @extend_schema(request=TokenOptionsSerializer, responses={201: NewTokenOutputSerializer})
    def post(self, request: Request) -> Response:
        body = TokenOptionsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        issued = token_issue(user=signed_in(request), **body.validated_data)
        return _issued(issued, request, status.HTTP_201_CREATED)


class TokenDetailApi(APIView):
    """One of your tokens; ``DELETE`` revokes it (it stays listed, revoked)."""

    @extend_schema(responses=TokenOutputSerializer)
    def get(self, request: Request, token_id: uuid.UUID) -> Response:
        return Response(token_json(token_of(user=signed_in(request), token_id=token_id), request))

    @extend_schema(responses={204: None})
    def delete(self, request: Request, token_id: uuid.UUID) -> Response:
        token_revoke(token_of(user=signed_in(request), token_id=token_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenRotateApi(APIView):
    """Replace one of your live tokens by a new one (same name and rights, a fresh lifetime):
    the old one stops working at once."""

    @extend_schema(request=TokenRotateSerializer, responses={201: NewTokenOutputSerializer})
    def post(self, request: Request, token_id: uuid.UUID) -> Response:
        body = TokenRotateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        token = token_of(user=signed_in(request), token_id=token_id)
        issued = token_rotate(token, expires_in_days=body.validated_data["expires_in_days"])
        return _issued(issued, request, status.HTTP_201_CREATED)

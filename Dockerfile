# matchlog: the API by default; `matchlog worker` for a rule worker (see compose.yaml).
# Every container of a deployment needs the same MATCHLOG_SECRET_KEY (it seals seeds, signs checkpoints).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Only what the package is built from (no .venv, .git or local data from the build machine).
COPY pyproject.toml README.md ./
COPY service ./service
COPY workers ./workers
RUN pip install --no-cache-dir . \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin matchlog \
    && mkdir -p /var/lib/matchlog && chown matchlog /var/lib/matchlog

# where each process keeps its Prometheus values (and a server key, were MATCHLOG_SECRET_KEY unset):
# a folder this user may write, which /app is not
ENV MATCHLOG_DATA=/var/lib/matchlog
USER matchlog
EXPOSE 8000
CMD ["matchlog", "api", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]

# tpuwatch server image. Build: docker build -t tpuwatch .   Run with PostgreSQL: docker compose up
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TPUWATCH_DATA_DIR=/data

WORKDIR /app
# Dependencies first, so that a code change does not reinstall them.
COPY pyproject.toml README.md ./
COPY app ./app
COPY agent ./agent
# Installed in place (-e): the server finds templates/, static/ and migrations/ next to app/.
RUN pip install -e '.[server]'
COPY alembic.ini ./
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static

RUN useradd --system --uid 10001 --no-create-home tpuwatch \
    && mkdir -p /data && chown tpuwatch /data
USER tpuwatch
VOLUME /data
EXPOSE 8000

HEALTHCHECK --interval=15s --timeout=5s --start-period=30s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

# Applies pending migrations, then serves. TPUWATCH_DB selects the database (SQLite in /data if unset).
CMD ["tpuwatch", "server", "--host", "0.0.0.0", "--port", "8000"]

# tpuwatch server image. Build: docker build -t tpuwatch .   Run with PostgreSQL: docker compose up
# Stage 1 builds the wheel from the checkout; stage 2 installs it as a user would (not editable):
# templates, static files and migrations travel inside the package.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY agent ./agent
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY migrations ./migrations
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TPUWATCH_DATA_DIR=/data

COPY --from=build /wheels /wheels
RUN pip install "$(echo /wheels/tpuwatch-*.whl)[server]" && rm -rf /wheels

RUN useradd --system --uid 10001 --no-create-home tpuwatch \
    && mkdir -p /data && chown tpuwatch /data
USER tpuwatch
WORKDIR /data
VOLUME /data
EXPOSE 8000

HEALTHCHECK --interval=15s --timeout=5s --start-period=30s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

# Applies pending migrations, then serves. TPUWATCH_DB selects the database (SQLite in /data if unset).
CMD ["tpuwatch", "server", "--host", "0.0.0.0", "--port", "8000"]

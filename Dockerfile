# Builds Tollgate with the Maven wrapper and runs it on a JRE as an unprivileged user.
#   docker build -t tollgate .
#   docker run -p 8080:8080 tollgate                       # sandbox, embedded PostgreSQL
#   docker run -p 8080:8080 -e TOLLGATE_ENVIRONMENT=production -e TOLLGATE_DB_URL=... \
#     -e TOLLGATE_DB_USER=... -e TOLLGATE_DB_PASSWORD=... -e TOLLGATE_MASTER_KEY=... \
#     -e TOLLGATE_PUBLIC_URL=https://pay.example.com tollgate
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY . .
RUN ./mvnw -B -q -DskipTests package

FROM eclipse-temurin:17-jre
RUN useradd --system --create-home --home-dir /var/lib/tollgate tollgate
COPY --from=build /src/bootstrap/target/tollgate.jar /opt/tollgate/tollgate.jar
USER tollgate
WORKDIR /var/lib/tollgate
ENV TOLLGATE_DATA_DIR=/var/lib/tollgate \
    TOLLGATE_PORT=8080
EXPOSE 8080
VOLUME /var/lib/tollgate
# SIGTERM drains requests in flight and webhook deliveries before the JVM exits.
STOPSIGNAL SIGTERM
# The throughput collector: on the few cores a gateway instance gets, G1's concurrent work costs
# more than its shorter pauses save (BENCHMARKS.md). A 512 MB heap, as the benchmarks run it,
# rather than a share of the container's memory: the sandbox's embedded
# PostgreSQL lives in the same container and needs memory of its own, as does the JVM beyond
# its heap: give the container more than 512 MB.
ENTRYPOINT ["java", "-XX:+UseParallelGC", "-Xmx512m", "-jar", "/opt/tollgate/tollgate.jar"]
CMD ["serve"]

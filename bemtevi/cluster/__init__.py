"""`bemtevi cluster` (`make cluster`): cluster mode on one machine, started and stopped as one.

A composition root above the layers, like ``bootstrap``: ``supervisor`` (``ClusterSupervisor``) runs it, its
children are ``children``'s and its databases ``databases``'. It starts, in order:

1. PostgreSQL: ``BEMTEVI_DATABASE_URL``'s, else the project's own server (``infra.local_services``,
   shared with the tests and left running, as they leave it) with a database ``bemtevi`` on it;
2. Kafka: ``BEMTEVI_KAFKA_BOOTSTRAP``'s, else one broker whose data is kept under
   ``<var>/cluster/kafka`` (topics, records and consumer groups' offsets survive the next start; its
   ports are new free ones each time, which KRaft accepts);
3. the relay (`bemtevi relay`) and every worker command registered under `bemtevi worker`
   (the mailer, the enrichment processor, and two ledger workers once `bemtevi worker ledger` exists);
4. the API processes (`bemtevi serve --reuse-port`), one after the other (the first start creates the
   super-admin), each accepting from a listening socket of its own that it binds at the address with
   ``SO_REUSEPORT`` once it can serve (the kernel spreads new connections over them), each with its own read
   store under ``<var>/cluster/api-N`` (a DuckDB file has one owner).

Every child gets the same event store, Kafka and signing key, ``BEMTEVI_MAILER=worker`` and
``BEMTEVI_ENRICHMENT=worker`` (the workers deliver mail and run batches), ``BEMTEVI_LEDGER=kafka`` when the
ledger worker runs and ``BEMTEVI_READ_FEED=kafka`` when the settings know it. Children run in sessions of
their own (a Ctrl-C in the terminal reaches only this process) and are told SIGTERM by the kernel if this
process dies. Their standard output is shown here prefixed with their name; their logs (JSON lines) go to
``<var>/cluster/logs/<name>.log``.

The address is printed once every API process has started and the address answers. From then on the cluster
survives the death of any one process, as a process manager keeps a service: a child that ends is logged (name,
exit status or signal) and started again after a back-off (0.5 s, doubling to 10 s, back to 0.5 s once it has
run a minute); a dead API process's socket leaves the port with it, so the kernel sends new connections to the
others at once, and the one started again binds a new one once it can serve. A broker this process started is
started again on its ports, with its data; while the event store's PostgreSQL does not answer, restarts wait
for it (said once, and again when it answers). SIGINT or SIGTERM stops everything in order: API processes,
workers, relay, broker; each SIGTERM, then SIGKILL after a bound, and nothing is started again meanwhile.
"""

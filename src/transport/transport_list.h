/*
 * transport_list.h — the transports built into Uzura, one line each:
 * UZ_TRANSPORT(name, summary), where `name` is the folder src/transport/<name>/
 * and that folder defines `const struct uz_transport_ops uz_<name>_transport`.
 *
 * This is the registration table (docs/writing-a-transport.md): the
 * request layer's wire-up (transport_registry.h) and `uzura_info`
 * (tools/uzura_info/transports.h) both read it, so what is listed is what
 * is built and what the library may choose.  The includer defines
 * UZ_TRANSPORT before including this file; it is undefined at the end.
 *
 * The order matters for one thing only: among transports of the same
 * reach, wire-up opens the first that fits (networks are chosen by
 * UZURA_NET, in its order, instead).
 */
UZ_TRANSPORT(self, "a rank sending to itself: handed to the receive side at once")
UZ_TRANSPORT(shm, "ranks on one host: cache-line rings, one-copy large messages by cross-memory attach")
UZ_TRANSPORT(tcp, "ranks on other hosts: one connection per peer pair, opened on demand, job key checked")
UZ_TRANSPORT(udp, "ranks on other hosts: the GigaE PM reliable-datagram protocol, one socket per process")
UZ_TRANSPORT(ofi, "ranks on other hosts: libfabric reliable datagram endpoints (RDMA, or its tcp/udp providers), large messages by fi_read")

#undef UZ_TRANSPORT

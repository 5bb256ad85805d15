/*
 * process_mapping.h — reading MPICH's PMI_process_mapping value, which
 * PMI-2 servers (Slurm, Hydra) give as a job attribute:
 *
 *     (vector,(first_node,node_count,ranks_per_node),...)
 *
 * Ranks fill each block in order (ranks_per_node consecutive ranks on each
 * of node_count nodes from first_node), the blocks in turn, and the whole
 * vector again from the start until every rank has a node.
 */
#ifndef UZ_PMI_PROCESS_MAPPING_H
#define UZ_PMI_PROCESS_MAPPING_H

struct uz_pmi_placement {
    int local_rank, local_size, node_id, num_nodes;
};

/* Where rank is among size ranks under mapping.  0, or -EINVAL when the
 * text is not a mapping this parser understands (then *out is untouched). */
int uz_pmi_process_mapping(const char *mapping, int rank, int size,
                           struct uz_pmi_placement *out);

#endif /* UZ_PMI_PROCESS_MAPPING_H */

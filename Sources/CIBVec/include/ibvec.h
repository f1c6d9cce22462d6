/* ibvec: work in progress. */

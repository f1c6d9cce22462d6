/* CKernels: work in progress. */

// Package datasets will hold the on-disk layout of the Parquet day files
// (DESIGN.md §6), their catalog and retention roll-ups. It is empty until the
// history issue lands; the folder exists so the layout of DESIGN.md §2 holds
// from the first commit.
package datasets

// Package mcstat turns Markov chain output into trustworthy estimates:
// effective sample sizes (Geyer's initial monotone sequence over several
// chains), rank-normalized split-R̂ (Vehtari, Gelman, Simpson, Carpenter
// and Bürkner 2021), Monte Carlo standard errors, and moments that merge
// exactly across calls, GPUs and machines (Chan, Golub and LeVeque).
//
// Draws are given as chains[m][n]: chain m's n-th draw of one scalar
// quantity (a coordinate, its square, or any functional of the state).
// Every chain must have the same length.
package mcstat

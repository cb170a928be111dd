//go:build nospannerfast

package main

// spannerfastBuilt reports that the spannerfast arms were left out with the
// nospannerfast build tag.
const spannerfastBuilt = false
